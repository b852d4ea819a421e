/**
 * What cache-ttl-view persists in the session with `pi.appendEntry` (custom entries, never sent to the model),
 * and how a list of them folds back into state after a reload. Prune sets are stored as deltas, so each entry
 * stays small however long the session gets.
 */
import { z } from "zod";
import type { Caps } from "../views/caps.ts";
export declare const STATE_ENTRY_TYPE = "cache-ttl-view";
/** A prune notice as it is shown to the model: persisted verbatim so every later request repeats the same bytes. */
declare const NoticeSchema: z.ZodObject<{
    after: z.ZodString;
    at: z.ZodNumber;
    text: z.ZodString;
}, z.core.$strip>;
export type StoredNotice = z.infer<typeof NoticeSchema>;
declare const StateEntrySchema: z.ZodDiscriminatedUnion<[z.ZodObject<{
    kind: z.ZodLiteral<"touch">;
    at: z.ZodNumber;
    ttlSeconds: z.ZodNumber;
    warmGapSeconds: z.ZodCatch<z.ZodOptional<z.ZodPipe<z.ZodNumber, z.ZodTransform<number, number>>>>;
}, z.core.$strip>, z.ZodPipe<z.ZodObject<{
    kind: z.ZodLiteral<"prune">;
    at: z.ZodNumber;
    ttlSeconds: z.ZodNumber;
    ids: z.ZodCatch<z.ZodPipe<z.ZodArray<z.ZodUnknown>, z.ZodTransform<string[], unknown[]>>>;
    savedTokens: z.ZodCatch<z.ZodNumber>;
    caps: z.ZodCatch<z.ZodOptional<z.ZodObject<{
        maxTextChars: z.ZodNumber;
        maxFieldChars: z.ZodNumber;
        maxListItems: z.ZodNumber;
        maxDictKeys: z.ZodNumber;
    }, z.core.$strip>>>;
    owners: z.ZodCatch<z.ZodOptional<z.ZodArray<z.ZodNumber>>>;
    notice: z.ZodCatch<z.ZodOptional<z.ZodObject<{
        after: z.ZodString;
        at: z.ZodNumber;
        text: z.ZodString;
    }, z.core.$strip>>>;
}, z.core.$strip>, z.ZodTransform<{
    kind: "prune";
    at: number;
    ttlSeconds: number;
    ids: string[];
    savedTokens: number;
    caps?: {
        maxTextChars: number;
        maxFieldChars: number;
        maxListItems: number;
        maxDictKeys: number;
    } | undefined;
    owners?: number[] | undefined;
    notice?: {
        after: string;
        at: number;
        text: string;
    } | undefined;
}, {
    kind: "prune";
    at: number;
    ttlSeconds: number;
    ids: string[];
    savedTokens: number;
    caps?: {
        maxTextChars: number;
        maxFieldChars: number;
        maxListItems: number;
        maxDictKeys: number;
    } | undefined;
    owners?: number[] | undefined;
    notice?: {
        after: string;
        at: number;
        text: string;
    } | undefined;
}>>, z.ZodObject<{
    kind: z.ZodLiteral<"restore">;
    at: z.ZodCatch<z.ZodNumber>;
    ids: z.ZodCatch<z.ZodPipe<z.ZodArray<z.ZodUnknown>, z.ZodTransform<string[], unknown[]>>>;
}, z.core.$strip>, z.ZodObject<{
    at: z.ZodCatch<z.ZodNumber>;
    ids: z.ZodCatch<z.ZodOptional<z.ZodPipe<z.ZodArray<z.ZodUnknown>, z.ZodTransform<string[], unknown[]>>>>;
    paths: z.ZodCatch<z.ZodOptional<z.ZodPipe<z.ZodArray<z.ZodUnknown>, z.ZodTransform<string[], unknown[]>>>>;
    tools: z.ZodCatch<z.ZodOptional<z.ZodPipe<z.ZodArray<z.ZodUnknown>, z.ZodTransform<string[], unknown[]>>>>;
    kind: z.ZodLiteral<"pin">;
}, z.core.$strip>, z.ZodObject<{
    at: z.ZodCatch<z.ZodNumber>;
    ids: z.ZodCatch<z.ZodOptional<z.ZodPipe<z.ZodArray<z.ZodUnknown>, z.ZodTransform<string[], unknown[]>>>>;
    paths: z.ZodCatch<z.ZodOptional<z.ZodPipe<z.ZodArray<z.ZodUnknown>, z.ZodTransform<string[], unknown[]>>>>;
    tools: z.ZodCatch<z.ZodOptional<z.ZodPipe<z.ZodArray<z.ZodUnknown>, z.ZodTransform<string[], unknown[]>>>>;
    kind: z.ZodLiteral<"unpin">;
}, z.core.$strip>], "kind">;
/** What cache-ttl-view persists: a touch of the cache, a prune (a delta of ids), an in-place restore, pins. */
export type StateEntry = z.output<typeof StateEntrySchema>;
/** The `cache-ttl-view` custom entry: declared once, read and written only through the kit. */
export declare const STATE_ENTRY: import("@pi-rails/agent-core/kit").SessionEntryType<{
    kind: "prune";
    at: number;
    ttlSeconds: number;
    ids: string[];
    savedTokens: number;
    caps?: {
        maxTextChars: number;
        maxFieldChars: number;
        maxListItems: number;
        maxDictKeys: number;
    } | undefined;
    owners?: number[] | undefined;
    notice?: {
        after: string;
        at: number;
        text: string;
    } | undefined;
} | {
    kind: "touch";
    at: number;
    ttlSeconds: number;
    warmGapSeconds?: number | undefined;
} | {
    kind: "restore";
    at: number;
    ids: string[];
} | {
    at: number;
    kind: "pin";
    ids?: string[] | undefined;
    paths?: string[] | undefined;
    tools?: string[] | undefined;
} | {
    at: number;
    kind: "unpin";
    ids?: string[] | undefined;
    paths?: string[] | undefined;
    tools?: string[] | undefined;
}>;
export interface FoldedState {
    touchAt?: number;
    ttlSeconds?: number;
    warmGapSeconds: number;
    /** The pruned ids, each with the caps of the prune that pruned it (undefined: not stored, an older entry). */
    pruned: Map<string, Caps | undefined>;
    /** Every id ever pruned on the branch, with its owner hash (restores keep it: the model has seen the id). */
    owners: Map<string, number>;
    notices: StoredNotice[];
    prunes: {
        at: number;
        count: number;
        savedTokens: number;
    }[];
    pins: {
        ids: Set<string>;
        paths: Set<string>;
        tools: Set<string>;
    };
}
export declare function emptyState(): FoldedState;
/** Apply one entry to the state. */
export declare function foldEntry(state: FoldedState, e: StateEntry): void;
/** Fold the entries of a branch, oldest first. */
export declare function foldEntries(entries: readonly StateEntry[]): FoldedState;
export {};
//# sourceMappingURL=entries.d.ts.map