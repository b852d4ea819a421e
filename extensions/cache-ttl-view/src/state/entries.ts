/**
 * What cache-ttl-view persists in the session with `pi.appendEntry` (custom entries, never sent to the model),
 * and how a list of them folds back into state after a reload. Prune sets are stored as deltas, so each entry
 * stays small however long the session gets.
 */

import { defineSessionEntry } from "@pi-rails/agent-core/kit";
import { z } from "zod";
import type { Caps } from "../views/caps.ts";

/** `<extension>:<kind>`, as pi-rails entries are spelled; sessions of earlier versions hold `cache-ttl-view`. */
export const STATE_ENTRY_TYPE = "cache-ttl:state";

/** The owners this version writes with each prune (`contentOwner`); entries without a version hold legacy ones. */
export const OWNER_VERSION = 2;

// Entries come from a file, maybe written by another version: a bad optional field is dropped, a list keeps its
// usable items, and an entry without what it needs is skipped (never thrown).
const num = z.number().finite();
const strings = z.array(z.unknown()).transform((list) => list.filter((s): s is string => typeof s === "string"));
const optional = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const targets = { at: num.catch(0), ids: optional(strings), paths: optional(strings), tools: optional(strings) };

/** A prune notice as it is shown to the model: persisted verbatim so every later request repeats the same bytes. */
const NoticeSchema = z.object({ after: z.string(), at: num, text: z.string() });
export type StoredNotice = z.infer<typeof NoticeSchema>;

const CapsSchema = z.object({
  maxTextChars: num.min(1),
  maxFieldChars: num.min(1),
  maxListItems: num.min(1),
  maxDictKeys: num.min(1),
});

const StateEntrySchema = z
  .discriminatedUnion("kind", [
    z.object({
      kind: z.literal("touch"),
      at: num,
      ttlSeconds: num,
      warmGapSeconds: optional(num.transform((v) => Math.max(0, v))),
    }),
    z.object({
      kind: z.literal("prune"),
      at: num,
      ttlSeconds: num,
      ids: strings.catch([]),
      savedTokens: num.catch(0),
      /** The caps the replacements were built with (absent in entries written before they were stored). */
      caps: optional(CapsSchema),
      /** The owner hash of each id (index-aligned with `ids`; absent in entries written before they were stored). */
      owners: optional(z.array(num)),
      /**
       * 2: `owners` name the blocks' content (`contentOwner`); absent: the source only (`ownerHash`, versions before).
       * Any other version is one this version cannot read: its owners are ignored (the order rule decides those ids).
       */
      ownerVersion: optional(num),
      /**
       * The lines each replacement counted (index-aligned with `ids`; -1: none), so that a reload draws the same
       * markers without reading every output again. Absent in entries written before they were stored.
       */
      lines: optional(z.array(z.number().int().safe().min(-1))),
      /** Absent only in a damaged entry. */
      notice: optional(NoticeSchema),
    }),
    z.object({ kind: z.literal("restore"), at: num.catch(0), ids: strings.catch([]) }),
    /** A `cache_warming_decision` of pi's and the view's choice with it (the report says it; the clock ignores it). */
    z.object({ kind: z.literal("warming"), at: num, chosen: z.enum(["warm", "prune"]), reason: z.string() }),
    z.object({ kind: z.literal("pin"), ...targets }),
    z.object({ kind: z.literal("unpin"), ...targets }),
  ])
  // A prune's list that is not index-aligned with the ids cannot say which id it belongs to: it is dropped. (Here,
  // not on the prune's own schema: zod 3's discriminated union takes plain objects only.)
  .transform((e) => {
    if (e.kind !== "prune") return e;
    let aligned = e;
    if (e.owners !== undefined && e.owners.length !== e.ids.length) aligned = { ...aligned, owners: undefined };
    if (e.lines !== undefined && e.lines.length !== e.ids.length) aligned = { ...aligned, lines: undefined };
    return aligned;
  });

/**
 * What cache-ttl-view persists: a touch of the cache, a prune (a delta of ids), an in-place restore, pins, and the
 * choice made with pi's cache warming.
 */
export type StateEntry = z.output<typeof StateEntrySchema>;

/** The `cache-ttl-view` custom entry: declared once, read and written only through the kit. */
export const STATE_ENTRY = defineSessionEntry(STATE_ENTRY_TYPE, (data) => StateEntrySchema.safeParse(data).data, {
  formerly: ["cache-ttl-view"],
});

export interface FoldedState {
  touchAt?: number;
  ttlSeconds?: number;
  warmGapSeconds: number;
  /** The pruned ids, each with its row in `rows`: what the prune that pruned it stored for it. */
  pruned: Map<string, number>;
  /**
   * By row of `pruned`: the caps its replacement was built with (undefined: not stored, an older entry), and the lines
   * it counted (-1: none, or not stored; see `ToolViewInput.lines`). Columns, not an object per id: a prune of a long
   * session folds 30,000 ids.
   */
  rows: { caps: (Caps | undefined)[]; lines: number[] };
  /** Every id ever pruned on the branch, with its owner hash (restores keep it: the model has seen the id). */
  owners: Map<string, number>;
  /** The ids of `owners` whose owner is the source-only hash of older versions (see `Registrations`). */
  legacyOwners: Set<string>;
  notices: StoredNotice[];
  prunes: { at: number; count: number; savedTokens: number }[];
  pins: { ids: Set<string>; paths: Set<string>; tools: Set<string> };
  /** The last choice made with pi's cache warming on the branch. */
  warming?: { at: number; chosen: "warm" | "prune"; reason: string };
}

export function emptyState(): FoldedState {
  return {
    warmGapSeconds: 0,
    pruned: new Map(),
    owners: new Map(),
    legacyOwners: new Set(),
    rows: { caps: [], lines: [] },
    notices: [],
    prunes: [],
    pins: { ids: new Set(), paths: new Set(), tools: new Set() },
  };
}

/** Apply one entry to the state. */
export function foldEntry(state: FoldedState, e: StateEntry): void {
  switch (e.kind) {
    case "touch":
      state.touchAt = e.at;
      state.ttlSeconds = e.ttlSeconds;
      // The latest evidence wins: a later miss withdraws an earlier warm gap.
      if (e.warmGapSeconds !== undefined) state.warmGapSeconds = e.warmGapSeconds;
      return;
    case "prune":
      for (let k = 0; k < e.ids.length; k++) {
        const id = e.ids[k] as string;
        state.pruned.set(id, state.rows.lines.length);
        state.rows.caps.push(e.caps);
        state.rows.lines.push(e.lines?.[k] ?? -1);
        const owner = e.owners?.[k];
        if (owner === undefined || (e.ownerVersion !== undefined && e.ownerVersion !== OWNER_VERSION)) continue;
        state.owners.set(id, owner);
        if (e.ownerVersion === undefined) state.legacyOwners.add(id);
        else if (state.legacyOwners.size > 0) state.legacyOwners.delete(id);
      }
      state.touchAt = e.at;
      state.ttlSeconds = e.ttlSeconds;
      if (e.notice) state.notices.push(e.notice);
      state.prunes.push({ at: e.at, count: e.ids.length, savedTokens: e.savedTokens });
      return;
    case "restore":
      for (const id of e.ids) state.pruned.delete(id);
      return;
    case "warming":
      state.warming = { at: e.at, chosen: e.chosen, reason: e.reason };
      return;
    default: {
      const op = e.kind === "pin" ? "add" : "delete";
      for (const id of e.ids ?? []) state.pins.ids[op](id);
      for (const p of e.paths ?? []) state.pins.paths[op](p);
      for (const t of e.tools ?? []) state.pins.tools[op](t);
    }
  }
}

/** Fold the entries of a branch, oldest first. */
export function foldEntries(entries: readonly StateEntry[]): FoldedState {
  const state = emptyState();
  for (const entry of entries) foldEntry(state, entry);
  return state;
}
