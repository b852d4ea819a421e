import type { ViewMessage } from "./messages.ts";
/**
 * Stable identities. pi's context event hands us deep copies without entry ids, so a message is known by its role,
 * timestamp (and tool call id); a block id is a short hash of that key, short enough for the model to quote back
 * to `context_restore`, stable across processes so persisted prune sets apply after a reload.
 */
/** 32-bit FNV-1a of `prefix + text` (without building that string), as an unsigned number. */
export declare function hash32(prefix: string, text: string, seed?: number): number;
/**
 * `hash32(prefix, text)` and `ownerHash(prefix, text)` in one pass, written to `out` ([id hash, owner hash]): the
 * analysis hashes every block's source and keeps both, so the owners of a prune need no second pass.
 */
export declare function hashBoth(prefix: string, text: string, out: Uint32Array): void;
/** A 32-bit hash as 8 hex chars (one string allocation: this runs for every block of every pass). */
export declare function hex8(h: number): string;
/** Key of a message (before de-duplication of equal keys). */
export declare function rawMessageKey(m: ViewMessage): string;
/**
 * Whether `messages` starts with the messages of `prefix`, message by message (role and discriminator: no key
 * strings built). What a list prepared from the session file must pass before a request's list may extend it.
 */
export declare function startsWithMessages(messages: readonly ViewMessage[], prefix: readonly ViewMessage[]): boolean;
/**
 * Key of message `i`: its raw key, with `#2`, `#3`, ... when the same raw key occurred before it. Computed on
 * demand (one scan): keeping the keys of every message between requests would cost more than the view itself.
 */
export declare function messageKeyAt(messages: readonly ViewMessage[], i: number): string;
/** Indexes of the messages whose keys are in `wanted` (one scan, counting repeats only for wanted raw keys). */
export declare function findMessageKeys(messages: readonly ViewMessage[], wanted: ReadonlySet<string>): Map<string, number>;
/**
 * A second, independent 32-bit hash of a block's source: stored with each pruned id as the id's owner, so an id the
 * model has seen keeps naming the same block after the blocks before it are gone (compaction), and is never handed
 * to another block whose source hashes alike.
 */
export declare const ownerHash: (prefix: string, text: string) => number;
//# sourceMappingURL=ids.d.ts.map