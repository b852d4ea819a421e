import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { writeFileAtomicSync } from "@pi-rails/agent-core/kit";
import { type Ack, type AckState, isSteeringItem, type SteeringItem } from "../queue/types.ts";

/** One line of a session's steering journal. */
export type JournalRecord = { t: "accept"; item: SteeringItem } | { t: "settle"; id: string; state: AckState };

/** What a journal holds: items accepted and not settled (arrival order), and every settled id with its state. */
export interface JournalState {
  pending: SteeringItem[];
  settled: Map<string, AckState>;
  /** Lines that could not be read (a line cut short by a crash); skipped, never thrown. */
  skippedLines: number;
}

/** Settled ids kept when a journal is rewritten at open (the newest; older retries are no longer recognised). */
const JOURNAL_KEEP_SETTLED = 10_000;

const line = (record: JournalRecord): string => `${JSON.stringify(record)}\n`;

/** Replay journal text into its state. Pure; a damaged line is counted and skipped. */
export function replayJournal(text: string): JournalState {
  const pending = new Map<string, SteeringItem>();
  const settled = new Map<string, AckState>();
  let skippedLines = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let record: { t?: string; item?: unknown; id?: unknown; state?: unknown };
    try {
      record = JSON.parse(line);
    } catch {
      skippedLines++;
      continue;
    }
    if (record.t === "accept" && isSteeringItem(record.item)) {
      if (!settled.has(record.item.id)) pending.set(record.item.id, record.item);
    } else if (record.t === "settle" && typeof record.id === "string" && typeof record.state === "string") {
      pending.delete(record.id);
      settled.delete(record.id); // re-insert: the Map's order stays "settled most recently last"
      settled.set(record.id, record.state as AckState);
    } else {
      skippedLines++;
    }
  }
  return { pending: [...pending.values()], settled, skippedLines };
}

/**
 * A session's steering journal: an append-only JSON-lines file of accepted items and their end states, written
 * synchronously before an item is acknowledged as accepted (so "accepted" means "on disk": a SIGINT or SIGKILL
 * loses nothing, and the next run of the session delivers or acknowledges it) and as each item settles (so a retry
 * with the same id is recognised by every later process of the session). Lines are appended with one write each
 * to an O_APPEND descriptor, the way pi appends its session file.
 */
export class QueueJournal {
  readonly path: string;
  #fd: number | undefined;

  private constructor(path: string, fd: number) {
    this.path = path;
    this.#fd = fd;
  }

  /**
   * Open (creating, owner-only) the journal at `path` and read its state. A long journal is rewritten first
   * (atomically: a temp file renamed over it) to the pending items and the newest settled ids.
   */
  static open(path: string): { journal: QueueJournal; state: JournalState } {
    let text = "";
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    const state = replayJournal(text);
    const lines = text.length === 0 ? 0 : text.split("\n").length;
    if (lines > 2 * JOURNAL_KEEP_SETTLED + state.pending.length + 100) {
      const keep = [...state.settled].slice(-JOURNAL_KEEP_SETTLED);
      const records: JournalRecord[] = [
        ...keep.map(([id, s]): JournalRecord => ({ t: "settle", id, state: s })),
        ...state.pending.map((item): JournalRecord => ({ t: "accept", item })),
      ];
      writeFileAtomicSync(path, records.map(line).join(""));
      state.settled = new Map(keep);
    }
    return { journal: new QueueJournal(path, openSync(path, "a", 0o600)), state };
  }

  /** Record an accepted item, synchronously; throws when it cannot be written (the item is then refused). */
  accept(item: SteeringItem): void {
    this.flush();
    this.#write(line({ t: "accept", item }));
  }

  /**
   * Record an item's end state. Settles of one synchronous drain (a seam settles many items at once) are written
   * together in one write at the end of the current job (a microtask), before the loop can send anything on.
   */
  settle(ack: Ack): void {
    this.#settles.push(line({ t: "settle", id: ack.id, state: ack.state }));
    if (this.#settles.length > 1) return;
    queueMicrotask(() => {
      try {
        this.flush();
      } catch {
        // The acks stand; a lost settle line only means a later retry of the id is not recognised as one.
      }
    });
  }

  /** Write the settles not written yet. */
  flush(): void {
    if (this.#settles.length === 0 || this.#fd === undefined) return;
    const text = this.#settles.join("");
    this.#settles = [];
    this.#write(text);
  }

  close(): void {
    if (this.#fd === undefined) return;
    this.flush();
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  #settles: string[] = [];

  #write(text: string): void {
    if (this.#fd === undefined) throw new Error(`steering journal ${this.path} is closed`);
    writeSync(this.#fd, text);
  }
}
