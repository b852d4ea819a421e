/**
 * What cache-ttl-view persists in the session with `pi.appendEntry` (custom entries, never sent to the model),
 * and how a list of them folds back into state after a reload. Prune sets are stored as deltas, so each entry
 * stays small however long the session gets.
 */

import { defineSessionEntry } from "@pi-rails/agent-core/kit";
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
      /** The owner hash of each id (index-aligned with `ids`; absent in entries written before they were stored). */
      owners?: number[];
      /** Absent only in a damaged entry. */
      notice?: StoredNotice;
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
  /** Every id ever pruned on the branch, with its owner hash (restores keep it: the model has seen the id). */
  owners: Map<string, number>;
  notices: StoredNotice[];
  prunes: PruneRecord[];
  pins: { ids: Set<string>; paths: Set<string>; tools: Set<string> };
}

export function emptyState(): FoldedState {
  return {
    warmGapSeconds: 0,
    pruned: new Set(),
    prunedCaps: new Map(),
    owners: new Map(),
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

function noticeFrom(v: unknown): StoredNotice | undefined {
  const n = v as Record<string, unknown> | null | undefined;
  if (!n || typeof n["after"] !== "string" || typeof n["text"] !== "string" || !isNum(n["at"])) return undefined;
  return { after: n["after"], at: n["at"], text: n["text"] };
}

/**
 * The data of a stored entry as a `StateEntry` (it comes from a file, maybe written by another version): malformed
 * fields are dropped, an entry without what it needs is undefined (skipped, never thrown).
 */
export function readStateEntry(data: unknown): StateEntry | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const e = data as Record<string, unknown>;
  const at = isNum(e["at"]) ? e["at"] : 0;
  switch (e["kind"]) {
    case "touch":
      if (!isNum(e["at"]) || !isNum(e["ttlSeconds"])) return undefined;
      return {
        kind: "touch",
        at,
        ttlSeconds: e["ttlSeconds"],
        ...(isNum(e["warmGapSeconds"]) ? { warmGapSeconds: Math.max(0, e["warmGapSeconds"]) } : {}),
      };
    case "prune": {
      if (!isNum(e["at"]) || !isNum(e["ttlSeconds"])) return undefined;
      const caps = capsFrom(e["caps"]);
      const notice = noticeFrom(e["notice"]);
      const ids = strings(e["ids"]);
      const owners = Array.isArray(e["owners"]) ? e["owners"] : [];
      const ownersOk = owners.length === ids.length && owners.every(isNum);
      return {
        kind: "prune",
        at,
        ttlSeconds: e["ttlSeconds"],
        ids,
        savedTokens: isNum(e["savedTokens"]) ? e["savedTokens"] : 0,
        ...(caps ? { caps } : {}),
        ...(ownersOk && ids.length > 0 ? { owners: owners as number[] } : {}),
        ...(notice ? { notice } : {}),
      };
    }
    case "restore":
      return { kind: "restore", at, ids: strings(e["ids"]) };
    case "pin":
    case "unpin":
      return { kind: e["kind"], at, ids: strings(e["ids"]), paths: strings(e["paths"]), tools: strings(e["tools"]) };
    default:
      return undefined;
  }
}

/** The `cache-ttl-view` custom entry: declared once, read and written only through the kit. */
export const STATE_ENTRY = defineSessionEntry(STATE_ENTRY_TYPE, readStateEntry);

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
      for (const [k, id] of e.ids.entries()) {
        state.pruned.add(id);
        if (e.caps) state.prunedCaps.set(id, e.caps);
        else state.prunedCaps.delete(id);
        const owner = e.owners?.[k];
        if (owner !== undefined) state.owners.set(id, owner);
      }
      state.touchAt = e.at;
      state.ttlSeconds = e.ttlSeconds;
      if (e.notice) state.notices.push(e.notice);
      state.prunes.push({ at: e.at, count: e.ids.length, savedTokens: e.savedTokens });
      return;
    case "restore":
      for (const id of e.ids) {
        state.pruned.delete(id);
        state.prunedCaps.delete(id);
      }
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
