/**
 * What cache-ttl-view persists in the session with `pi.appendEntry` (custom entries, never sent to the model),
 * and how a list of them folds back into state after a reload. Prune sets are stored as deltas, so each entry
 * stays small however long the session gets.
 */

import type { Caps } from "../views/caps.ts";

export const STATE_ENTRY_TYPE = "cache-ttl-view";

/** A prune notice as it is shown to the model: persisted verbatim so every later request repeats the same bytes. */
export interface StoredNotice {
  /** Key of the message the notice follows in the view. */
  after: string;
  at: number;
  text: string;
}

export type StateEntry =
  | { kind: "touch"; at: number; ttlSeconds: number; warmGapSeconds?: number }
  | {
      kind: "prune";
      at: number;
      ttlSeconds: number;
      ids: string[];
      savedTokens: number;
      /** The caps the replacements were built with (absent in entries written before they were stored). */
      caps?: Caps;
      notice: StoredNotice;
    }
  | { kind: "restore"; at: number; ids: string[] }
  | { kind: "pin"; at: number; ids?: string[]; paths?: string[]; tools?: string[] }
  | { kind: "unpin"; at: number; ids?: string[]; paths?: string[]; tools?: string[] };

export interface PruneRecord {
  at: number;
  count: number;
  savedTokens: number;
}

export interface FoldedState {
  touchAt?: number;
  ttlSeconds?: number;
  warmGapSeconds: number;
  pruned: Set<string>;
  /** Caps of the prune that pruned each id (when stored). */
  prunedCaps: Map<string, Caps>;
  notices: StoredNotice[];
  prunes: PruneRecord[];
  pins: { ids: Set<string>; paths: Set<string>; tools: Set<string> };
}

export function emptyState(): FoldedState {
  return {
    warmGapSeconds: 0,
    pruned: new Set(),
    prunedCaps: new Map(),
    notices: [],
    prunes: [],
    pins: { ids: new Set(), paths: new Set(), tools: new Set() },
  };
}

const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : []);

function capsFrom(v: unknown): Caps | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const c = v as Record<string, unknown>;
  const keys = ["maxTextChars", "maxFieldChars", "maxListItems", "maxDictKeys"] as const;
  if (!keys.every((k) => isNum(c[k]) && (c[k] as number) >= 1)) return undefined;
  return {
    maxTextChars: c["maxTextChars"] as number,
    maxFieldChars: c["maxFieldChars"] as number,
    maxListItems: c["maxListItems"] as number,
    maxDictKeys: c["maxDictKeys"] as number,
  };
}

/** Apply one entry's data (unknown shape: it comes from a file) to the state; malformed data is skipped. */
export function foldEntry(state: FoldedState, data: unknown): void {
  if (typeof data !== "object" || data === null) return;
  const e = data as Record<string, unknown>;
  switch (e["kind"]) {
    case "touch":
      if (isNum(e["at"]) && isNum(e["ttlSeconds"])) {
        state.touchAt = e["at"];
        state.ttlSeconds = e["ttlSeconds"];
        // The latest evidence wins: a later miss withdraws an earlier warm gap.
        if (isNum(e["warmGapSeconds"])) state.warmGapSeconds = Math.max(0, e["warmGapSeconds"]);
      }
      return;
    case "prune": {
      if (!isNum(e["at"]) || !isNum(e["ttlSeconds"])) return;
      const ids = strings(e["ids"]);
      const caps = capsFrom(e["caps"]);
      for (const id of ids) {
        state.pruned.add(id);
        if (caps) state.prunedCaps.set(id, caps);
        else state.prunedCaps.delete(id);
      }
      state.touchAt = e["at"];
      state.ttlSeconds = e["ttlSeconds"];
      const n = e["notice"] as Record<string, unknown> | undefined;
      if (n && typeof n["after"] === "string" && typeof n["text"] === "string" && isNum(n["at"])) {
        state.notices.push({ after: n["after"], at: n["at"], text: n["text"] });
      }
      state.prunes.push({
        at: e["at"],
        count: ids.length,
        savedTokens: isNum(e["savedTokens"]) ? e["savedTokens"] : 0,
      });
      return;
    }
    case "restore":
      for (const id of strings(e["ids"])) {
        state.pruned.delete(id);
        state.prunedCaps.delete(id);
      }
      return;
    case "pin":
    case "unpin": {
      const op = e["kind"] === "pin" ? "add" : "delete";
      for (const id of strings(e["ids"])) state.pins.ids[op](id);
      for (const p of strings(e["paths"])) state.pins.paths[op](p);
      for (const t of strings(e["tools"])) state.pins.tools[op](t);
      return;
    }
  }
}

/** Fold the data of every `cache-ttl-view` entry on the branch, oldest first. */
export function foldEntries(datas: readonly unknown[]): FoldedState {
  const state = emptyState();
  for (const data of datas) foldEntry(state, data);
  return state;
}
