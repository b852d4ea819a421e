import { readSessionEntries } from "@pi-rails/agent-core/kit";
import type { ViewMessage } from "../model/messages.ts";
import { SessionContextBuilder } from "../model/session-context.ts";
import { STATE_ENTRY, type StateEntry } from "../state/entries.ts";

/** One request of a recorded session: the context pi sent, when, and with which model. */
export interface RecordedRequest {
  at: number;
  context: ViewMessage[];
  provider?: string;
  model?: string;
  /** The wire format the request went out in (`model.api`). */
  api?: string;
  /** The `cache-ttl-view` entries written since the previous request (pins, restores, touches, prunes). */
  stateEntries: StateEntry[];
  /**
   * When pi 1.6's cache warming re-sent the previous request since then (ms, oldest first): its `usage` entries of
   * kind `cache_warm`. Such a request keeps the previous request's cache entry alive and enters no context.
   */
  cacheWarms?: number[];
  usage?: { input?: number; cacheRead?: number; cacheWrite?: number; cost?: Record<string, number> };
}

export interface ParsedSession {
  cwd?: string;
  requests: RecordedRequest[];
  /** Lines that are not JSON (a torn last write, garbage): skipped, as pi skips them, and counted. */
  skippedLines: number[];
}

type Entry = Record<string, unknown> & { id?: string; parentId?: string | null; type?: string };

/** The entries of the current branch: from the last entry back to the root through `parentId`. */
function branchOf(entries: Entry[]): Entry[] {
  const byId = new Map<string, Entry>();
  for (const e of entries) if (typeof e.id === "string") byId.set(e.id, e);
  const out: Entry[] = [];
  let cur: Entry | undefined = entries[entries.length - 1];
  const seen = new Set<string>();
  while (cur && typeof cur.id === "string" && !seen.has(cur.id)) {
    seen.add(cur.id);
    out.push(cur);
    cur = typeof cur.parentId === "string" ? byId.get(cur.parentId) : undefined;
  }
  return out.reverse();
}

/**
 * Parse a pi session file (JSONL) into the requests pi made: every assistant message is one request whose context
 * is the messages before it on the branch, as pi 1.6 builds it (system messages, compactions, context edits), and
 * pi's cache-warming requests in between. Lines that are
 * not JSON are skipped like pi skips them (their numbers are returned); a file with nothing of a session is an error.
 */
export function parseSessionFile(text: string, file = "session"): ParsedSession {
  const entries: Entry[] = [];
  let cwd: string | undefined;
  const skippedLines: number[] = [];
  for (const [n, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skippedLines.push(n + 1);
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    const e = value as Entry;
    if (e.type === "session") cwd = typeof e["cwd"] === "string" ? e["cwd"] : undefined;
    else entries.push(e);
  }
  if (entries.length === 0 && cwd === undefined) {
    throw new Error(`${file}: not a pi session file (no session header and no entries)`);
  }
  const requests: RecordedRequest[] = [];
  const context = new SessionContextBuilder();
  let stateEntries: StateEntry[] = [];
  let cacheWarms: number[] = [];
  for (const e of branchOf(entries)) {
    if (e.type === "custom") {
      stateEntries.push(...readSessionEntries([e], STATE_ENTRY));
      continue;
    }
    if (e.type === "usage") {
      const at = Date.parse(String(e["timestamp"]));
      if (e["kind"] === "cache_warm" && Number.isFinite(at)) cacheWarms.push(at);
      continue;
    }
    const message = e.type === "message" ? (e["message"] as ViewMessage) : undefined;
    if (message?.role === "assistant") {
      const usage = message["usage"] as RecordedRequest["usage"];
      requests.push({
        at: typeof message.timestamp === "number" ? message.timestamp : Date.parse(String(e["timestamp"])),
        context: context.messages(),
        ...(typeof message["provider"] === "string" ? { provider: message["provider"] } : {}),
        ...(typeof message["model"] === "string" ? { model: message["model"] } : {}),
        ...(typeof message["api"] === "string" ? { api: message["api"] } : {}),
        ...(usage ? { usage } : {}),
        stateEntries,
        ...(cacheWarms.length > 0 ? { cacheWarms } : {}),
      });
      stateEntries = [];
      cacheWarms = [];
    }
    context.add(e);
  }
  return { ...(cwd !== undefined ? { cwd } : {}), requests, skippedLines };
}
