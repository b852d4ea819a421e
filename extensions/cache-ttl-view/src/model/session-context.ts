import type { ViewMessage } from "./messages.ts";

type Entry = Record<string, unknown>;

/** One entry of the context: the messages it contributes (none for an omitting edit), and its original ones. */
interface Item {
  id: unknown;
  original: ViewMessage[];
  messages: ViewMessage[];
}

const isSystemEntry = (e: Entry) => e["type"] === "message" && (e["message"] as ViewMessage | null)?.role === "system";

/**
 * The messages pi 1.6 sends for a branch of session entries (root first), built the way pi's `buildSessionContext`
 * builds them: messages (system messages too: the prompt and tool loadout), custom messages, branch summaries, the
 * latest compaction (its system checkpoint and summary, then the non-system entries from `firstKeptEntryId` on:
 * none for a retain-none compaction, whose `firstKeptEntryId` is its own id), and `context_edit` entries (the latest
 * edit of an entry omits it or replaces its content). `usage` and `custom` entries add nothing. One builder serves
 * the extension (`context_restore` and `/cache-ttl` read the session's current context) and the report (which
 * replays every request of a file), without importing pi at run time.
 */
export class SessionContextBuilder {
  /** Every entry of the branch so far (a compaction keeps entries from before it: pi reads them from the path). */
  #path: Entry[] = [];
  #context: Item[] = [];
  #history: ViewMessage[] = [];

  /** Add one entry (unknown shape: it comes from a file or pi's session manager); other entry types are ignored. */
  add(entry: unknown): void {
    if (typeof entry !== "object" || entry === null) return;
    const e = entry as Entry;
    this.#path.push(e);
    if (e["type"] === "message") this.#history.push(e["message"] as ViewMessage);
    if (e["type"] === "compaction") this.#compact(e);
    else this.#include(e);
  }

  /** An entry after the latest compaction (or of a kept range): its messages, or its edit of an earlier entry. */
  #include(e: Entry): void {
    if (e["type"] === "context_edit") {
      const target = this.#context.findLast((item) => item.id === e["targetId"]);
      if (target) target.messages = edited(target.original, e["replacement"]);
      return;
    }
    const messages = messagesOf(e);
    if (messages.length > 0) this.#context.push({ id: e["id"], original: messages, messages });
  }

  /** pi's rule: the compaction, then the path's non-system entries from `firstKeptEntryId` up to it. */
  #compact(compaction: Entry): void {
    const summary: ViewMessage = {
      role: "compactionSummary",
      summary: compaction["summary"],
      tokensBefore: compaction["tokensBefore"],
      timestamp: Date.parse(String(compaction["timestamp"])),
    };
    const system = compaction["systemMessage"] as ViewMessage | undefined;
    const head = system && typeof system === "object" ? [system, summary] : [summary];
    this.#context = [{ id: compaction["id"], original: head, messages: head }];
    const end = this.#path.length - 1;
    const first = this.#path.findIndex((p, i) => i < end && p["id"] === compaction["firstKeptEntryId"]);
    if (first < 0) return;
    for (let i = first; i < end; i++) {
      const kept = this.#path[i] as Entry;
      // An older compaction in the kept range contributes nothing (only the latest one leads).
      if (kept["type"] !== "compaction" && !isSystemEntry(kept)) this.#include(kept);
    }
  }

  /** Every message of the branch so far, compacted ones included (where a restore finds what compaction cut). */
  history(): ViewMessage[] {
    return this.#history.slice();
  }

  /** The messages so far (a new array; the messages themselves are shared). */
  messages(): ViewMessage[] {
    const out: ViewMessage[] = [];
    for (const item of this.#context) for (const m of item.messages) out.push(m);
    return out;
  }
}

/** The messages one entry contributes to the context, as pi's `sessionEntryToContextMessages`. */
function messagesOf(e: Entry): ViewMessage[] {
  const at = () => Date.parse(String(e["timestamp"]));
  if (e["type"] === "message") {
    const m = e["message"] as ViewMessage | null;
    if (typeof m !== "object" || m === null) return [];
    // pi reads files without validation: a message without content is sent with an empty one.
    if ((m as { content?: unknown }).content == null) {
      if (m.role === "system") return [{ ...m, content: "" }];
      if (m.role === "user" || m.role === "assistant" || m.role === "toolResult") return [{ ...m, content: [] }];
    }
    return [m];
  }
  if (e["type"] === "custom_message") {
    return [
      {
        role: "custom",
        customType: String(e["customType"]),
        content: (e["content"] ?? []) as string,
        display: e["display"] === true,
        ...(e["details"] !== undefined ? { details: e["details"] } : {}),
        timestamp: at(),
      },
    ];
  }
  if (e["type"] === "branch_summary" && e["summary"]) {
    return [{ role: "branchSummary", summary: e["summary"], fromId: e["fromId"], timestamp: at() }];
  }
  return [];
}

/** pi's `projectContextEntry`: `null` omits the entry; otherwise its content is replaced (a string as one text part). */
function edited(original: ViewMessage[], replacement: unknown): ViewMessage[] {
  if (replacement === null) return [];
  if (typeof replacement !== "object" || replacement === undefined) return original;
  const content = (replacement as { content?: unknown }).content;
  return original.map((m) => {
    if (m.role !== "user" && m.role !== "assistant" && m.role !== "toolResult" && m.role !== "custom") return m;
    const parts =
      (m.role === "assistant" || m.role === "toolResult") && typeof content === "string"
        ? [{ type: "text", text: content }]
        : content;
    return { ...m, content: parts } as ViewMessage;
  });
}

/** The context of a branch of entries (root first) and its whole history (see `SessionContextBuilder.history`). */
export function builderOf(entries: readonly unknown[]): SessionContextBuilder {
  const builder = new SessionContextBuilder();
  for (const entry of entries) builder.add(entry);
  return builder;
}
