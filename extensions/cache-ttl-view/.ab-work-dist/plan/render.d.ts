import type { CustomMsg, ViewMessage } from "../model/messages.ts";
import type { StoredNotice } from "../state/entries.ts";
import { type Analysis, type Block } from "./analysis.ts";
import type { Replacement } from "./replacements.ts";
/** Custom message type of the prune notice in the model's view. */
export declare const NOTICE_TYPE = "cache_ttl_pruned";
/** The notice as a pi custom message (pi sends custom messages to the model as user text). */
export declare function noticeMessage(notice: StoredNotice): CustomMsg;
/** A tool call id without the provider's item id (`call_…|fc_…` from OpenAI Responses becomes `call_…`). */
export declare function withoutItemId(id: string): string;
/** The view of one message given the pruned set, or the message itself when nothing in it is pruned. */
export declare function renderMessage(messages: readonly ViewMessage[], analysis: Analysis, index: number, pruned: ReadonlySet<string>, replacement: (block: Block) => Replacement): ViewMessage;
/** Where the view differs from the message list: replaced messages and inserted notices. */
export interface ViewPatch {
    replaced: [number, ViewMessage][];
    /** Notices inserted after message index (ascending). */
    inserts: [number, ViewMessage][];
}
/** Compute the patch that turns `messages` into the model's view. */
export declare function patchFor(messages: readonly ViewMessage[], analysis: Analysis, pruned: ReadonlySet<string>, notices: readonly StoredNotice[], replacement: (block: Block) => Replacement): ViewPatch;
/** Apply a patch to a (mutable, pi-cloned) message array, in place; returns it. */
export declare function applyPatch(messages: ViewMessage[], patch: ViewPatch): ViewMessage[];
//# sourceMappingURL=render.d.ts.map