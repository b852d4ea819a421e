import type { CustomMsg, ViewMessage } from "../model/messages.ts";
import { type Analysis, type Block, type IdSet } from "../plan/analysis.ts";
import type { StoredNotice } from "../state/entries.ts";
import type { Replacement } from "./replacements.ts";
/** Custom message type of the prune notice in the model's view. */
export declare const NOTICE_TYPE = "cache_ttl_pruned";
/** The notice as a pi custom message (pi sends custom messages to the model as user text). */
export declare function noticeMessage(notice: StoredNotice): CustomMsg;
/** A tool call id without the provider's item id (`call_…|fc_…` from OpenAI Responses becomes `call_…`). */
export declare function withoutItemId(id: string): string;
/** The view of one message given the pruned set, or the message itself when nothing in it is pruned. */
export declare function renderMessage(messages: readonly ViewMessage[], analysis: Analysis, index: number, pruned: IdSet, replacement: (block: Block) => Replacement): ViewMessage;
/** Where the view differs from the message list: replaced messages and inserted notices. */
export interface ViewPatch {
    /** The view of message i, where it differs from the message. */
    replaced: Map<number, ViewMessage>;
    /** Notices inserted after message index (ascending). */
    inserts: [number, ViewMessage][];
    /** How many notices `inserts` was built from. */
    notices: number;
}
/**
 * The patch that turns `messages` into the model's view. With `previous` (the patch of the analysed prefix of
 * `from` messages, before `added` were pruned) only what changed is drawn again: the new messages and the messages
 * of the newly pruned blocks; everything else keeps its view (a prune only adds). `anchors`: message indexes already
 * known for notice keys (a notice made by this request anchors at its last message: no scan for it).
 */
export declare function patchFor(messages: readonly ViewMessage[], analysis: Analysis, pruned: IdSet, notices: readonly StoredNotice[], replacement: (block: Block) => Replacement, previous?: {
    patch: ViewPatch;
    from: number;
    added: readonly Block[];
}, anchors?: ReadonlyMap<string, number>): ViewPatch;
/** Apply a patch to a (mutable, pi-cloned) message array, in place; returns it. */
export declare function applyPatch(messages: ViewMessage[], patch: ViewPatch): ViewMessage[];
//# sourceMappingURL=render.d.ts.map