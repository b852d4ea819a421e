import type { ImagePart, TextPart, ViewMessage } from "../model/messages.ts";
import { type Analysis, type Block, type IdSet } from "../plan/analysis.ts";
/** Tool name the model calls to get pruned originals back. */
export declare const RESTORE_TOOL = "context_restore";
/**
 * The content `context_restore` returns for found originals: it lands at the tail of the conversation, so the
 * cached (pruned) prefix stays byte-identical and the model still sees the full original.
 */
export declare function restoredContent(found: readonly {
    id: string;
    block: Block;
    messages: readonly ViewMessage[];
}[], notes?: readonly string[]): (TextPart | ImagePart)[];
/**
 * Ids whose originals an earlier `context_restore` already appended and that are still in view there (its result
 * is not pruned itself): asking again would append the whole original a second time.
 */
export declare function shownOriginals(messages: readonly ViewMessage[], analysis: Analysis, pruned: IdSet): Set<string>;
/** The text `context_restore` answers for ids it does not append again (already shown, not pruned, unknown). */
export declare function restoreNotes(ids: {
    notPruned: string[];
    alreadyShown: string[];
    missing: string[];
}): string[];
//# sourceMappingURL=restore.d.ts.map