import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";
import { writeFileAtomicSync } from "@pi-rails/agent-core/kit";
import { type Ack, type AckState, isSteeringItem, type SteeringItem } from "../queue/types.ts";

/** One line of a session's steering journal. */
export type JournalRecord =
  | { t: "accept"; item: SteeringItem }
  | { t: "settle"; id: string; state: AckState }
  /** Settled before a hand-over that pi then dropped: pending again. */
  | { t: "reopen"; item: SteeringItem };

/** What a journal holds: items accepted and not settled (arrival order), and every settled id with its state. */
export interface JournalState {
  pending: SteeringItem[];
  settled: Map<string, AckState>;
  /** Lines that could not be read (damaged in the middle of the file); skipped, never thrown. */
  skippedLines: number;
  /**
   * What was wrong with the file and mended at open, one sentence each naming the file (a last line cut short by a
   * crash, a journal compacted from an oversized one), for the session to say once.
   */
  notices: string[];
}

/** Settled ids kept when a journal is rewritten (the newest; older retries are no longer recognised). */
export const JOURNAL_KEEP_SETTLED = 10_000;
/** A journal is rewritten while running once it holds this many bytes and twice what it would be rewritten to. */
export const JOURNAL_COMPACT_MIN_BYTES = 8 * 1024 * 1024;
/**
 * The most bytes a journal may hold after a rewrite: an accept that would pass it is refused with a message naming
 * the file. The queue's own limits (1,000 items, 8 MiB of content) keep a journal far below it.
 */
export const JOURNAL_MAX_BYTES = 64 * 1024 * 1024;

const line = (record: JournalRecord): string => `${JSON.stringify(record)}\n`;
const bytes = (text: string) => Buffer.byteLength(text);
const MiB = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;

/** A settle line as this journal writes it (ids without quotes or escapes): read without JSON.parse. */
const SETTLE_LINE = /^\{"t":"settle","id":"([^"\\]*)","state":"([a-z_]+)"\}$/;
/** The start of an accept line as this journal writes it: its id, so the item is parsed only if it stays pending. */
const ACCEPT_LINE = /^\{"t":"accept","item":\{"id":"([^"\\]*)",/;

/** A pending item: parsed, or its accept line still as read (parsed when asked for, if it stays pending). */
type Pending = { item?: SteeringItem; line?: string; bytes: number };

/**
 * Journal lines folded into their state as they come (no whole file in memory): pending items with their lines, and
 * the settled ids, of which only the newest are kept once there are twice as many. Lines in this journal's own
 * format are read without JSON.parse; an accept's item is parsed only if it is still pending at the end.
 */
class Replay {
  readonly #pending = new Map<string, Pending>();
  readonly settled = new Map<string, AckState>();
  skippedLines = 0;
  records = 0;

  /** Fold one line in (`size`: its bytes with the newline, when the reader knows them). */
  line(text: string, size?: number): void {
    if (text.trim() === "") return;
    this.records++;
    const settle = SETTLE_LINE.exec(text);
    if (settle) {
      this.settle(settle[1]!, settle[2] as AckState);
      return;
    }
    const accept = ACCEPT_LINE.exec(text);
    if (accept) {
      if (!this.settled.has(accept[1]!)) this.#pending.set(accept[1]!, { line: text, bytes: size ?? bytes(text) + 1 });
      return;
    }
    let record: { t?: string; item?: unknown; id?: unknown; state?: unknown };
    try {
      record = JSON.parse(text);
    } catch {
      this.skippedLines++;
      return;
    }
    if (record.t === "accept" && isSteeringItem(record.item)) {
      this.accept(record.item, size ?? bytes(text) + 1);
    } else if (record.t === "settle" && typeof record.id === "string" && typeof record.state === "string") {
      this.settle(record.id, record.state as AckState);
    } else if (record.t === "reopen" && isSteeringItem(record.item)) {
      this.settled.delete(record.item.id);
      this.accept(record.item, size ?? bytes(text) + 1);
    } else {
      this.skippedLines++;
    }
  }

  accept(item: SteeringItem, size: number): void {
    if (!this.settled.has(item.id)) this.#pending.set(item.id, { item, bytes: size });
  }

  settle(id: string, state: AckState): void {
    this.#pending.delete(id);
    this.settled.delete(id); // re-insert: the Map's order stays "settled most recently last"
    this.settled.set(id, state);
    if (this.settled.size > 2 * JOURNAL_KEEP_SETTLED) this.#forgetOldSettled();
  }

  #forgetOldSettled(): void {
    for (const old of this.settled.keys()) {
      if (this.settled.size <= JOURNAL_KEEP_SETTLED) break;
      this.settled.delete(old);
    }
  }

  /** The pending items in arrival order (accept lines read as text are parsed now; a damaged one is skipped). */
  pending(): SteeringItem[] {
    const items: SteeringItem[] = [];
    for (const [id, entry] of this.#pending) {
      if (entry.item === undefined) {
        let item: unknown;
        try {
          item = (JSON.parse(entry.line!) as { item?: unknown }).item;
        } catch {}
        if (!isSteeringItem(item)) {
          this.#pending.delete(id);
          this.skippedLines++;
          continue;
        }
        entry.item = item;
        entry.line = undefined;
      }
      items.push(entry.item);
    }
    return items;
  }

  /** The records a rewrite keeps (the settled ids past the newest are forgotten): settled ids, then pending items. */
  compacted(): string {
    this.#forgetOldSettled();
    return [
      ...[...this.settled].map(([id, state]) => line({ t: "settle", id, state })),
      ...this.pending().map((item) => line({ t: "accept", item })),
    ].join("");
  }

  keptRecords(): number {
    return Math.min(this.settled.size, JOURNAL_KEEP_SETTLED) + this.#pending.size;
  }

  state(notices: string[] = []): JournalState {
    const pending = this.pending();
    return {
      pending,
      settled: new Map(this.settled),
      skippedLines: this.skippedLines,
      notices,
    };
  }
}

/** Replay journal text into its state. Pure; a damaged line is counted and skipped. */
export function replayJournal(text: string): JournalState {
  const replay = new Replay();
  for (const part of text.split("\n")) replay.line(part);
  return replay.state();
}

/**
 * Feed the complete lines of the file open at `fd` to `onLine`, reading it in chunks (a journal of any size is read
 * without one string of it). Returns the file's size and where its last complete line ends: bytes after that are a
 * line cut short (a newline is never inside a UTF-8 character, so each line decodes on its own).
 */
function scanLines(fd: number, onLine: (line: string, size: number) => void): { size: number; end: number } {
  const chunk = Buffer.allocUnsafe(1024 * 1024);
  let carry: Buffer[] = [];
  let position = 0;
  let end = 0;
  for (;;) {
    const read = readSync(fd, chunk, 0, chunk.length, position);
    if (read === 0) break;
    let start = 0;
    for (let nl = chunk.indexOf(10, 0); nl !== -1 && nl < read; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const whole = carry.length > 0 ? Buffer.concat([...carry, piece]) : piece;
      carry = [];
      start = nl + 1;
      onLine(whole.toString("utf8"), position + start - end);
      end = position + start;
    }
    if (start < read) carry.push(Buffer.from(chunk.subarray(start, read)));
    position += read;
  }
  return { size: position, end };
}

/** Read the journal at `path` (streamed) into its state, without changing it; a missing file is an empty journal. */
export function readJournal(path: string): JournalState {
  const replay = new Replay();
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return replay.state();
    throw error;
  }
  try {
    scanLines(fd, (text, n) => replay.line(text, n));
  } finally {
    closeSync(fd);
  }
  return replay.state();
}

/**
 * A session's steering journal: an append-only JSON-lines file of accepted items and their end states, written
 * synchronously before an item is acknowledged as accepted (so "accepted" means "on disk": a SIGINT or SIGKILL
 * loses nothing, and the next run of the session delivers or acknowledges it) and as each item settles (so a retry
 * with the same id is recognised by every later process of the session). Lines are appended to an O_APPEND
 * descriptor, each record whole or not at all: a write cut short is cut off the file again, and a last line left
 * without its newline by a crash is cut off at the next open, so a record is never glued onto a torn one. The
 * journal keeps its own replay of what it holds and rewrites itself (atomically) when settled records dominate, so
 * it stays near the size of what is pending plus the newest settled ids.
 */
export class QueueJournal {
  readonly path: string;
  #fd: number | undefined;
  readonly #replay: Replay;
  /** Bytes in the file: where the next record starts (everything before it is whole lines). */
  #size: number;
  /** Records (lines) in the file. */
  #records: number;
  /** At this size the journal looks at whether a rewrite would halve it. */
  #checkAt: number;
  #settles: string[] = [];

  private constructor(path: string, fd: number, replay: Replay, size: number) {
    this.path = path;
    this.#fd = fd;
    this.#replay = replay;
    this.#size = size;
    this.#records = replay.records;
    this.#checkAt = Math.max(JOURNAL_COMPACT_MIN_BYTES, 2 * size);
  }

  /**
   * Open (creating, owner-only) the journal at `path` and read its state, streamed. A last line without its newline
   * (a crash mid-write) is cut off the file and reported in `notices`. A journal whose settled records dominate is
   * rewritten (a temp file renamed over it) to its pending items and the newest settled ids.
   */
  static open(path: string): { journal: QueueJournal; state: JournalState } {
    const fd = openSync(path, "a+", 0o600);
    try {
      const replay = new Replay();
      const notices: string[] = [];
      const { size, end } = scanLines(fd, (text, n) => replay.line(text, n));
      if (end < size) {
        ftruncateSync(fd, end);
        notices.push(
          `steering journal ${path}: its last record was cut short by a crash mid-write (${size - end} bytes without a line end); it was never acknowledged and was removed`,
        );
      }
      const journal = new QueueJournal(path, fd, replay, end);
      if (journal.#shouldCompact()) {
        journal.#compact();
        if (size > JOURNAL_COMPACT_MIN_BYTES) {
          notices.push(`steering journal ${path} was ${MiB(size)}: rewritten to ${MiB(journal.#size)}`);
        }
      }
      return { journal, state: replay.state(notices) };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Bytes the journal file holds now. */
  get size(): number {
    return this.#size;
  }

  /** Record an accepted item, synchronously; throws when it cannot be written (the item is then refused). */
  accept(item: SteeringItem): void {
    this.flush();
    const text = line({ t: "accept", item });
    if (this.#size + bytes(text) > JOURNAL_MAX_BYTES) {
      this.#compact();
      if (this.#size + bytes(text) > JOURNAL_MAX_BYTES) {
        throw new Error(
          `steering journal ${this.path} is full: ${MiB(this.#size)} of pending items and settled ids, the bound is ${MiB(JOURNAL_MAX_BYTES)}`,
        );
      }
    }
    this.#write(text, 1);
    this.#replay.accept(item, bytes(text));
    this.#maybeCompact();
  }

  /**
   * Record an item's end state. Settles of one synchronous drain (a seam settles many items at once) are written
   * together in one write at the end of the current job (a microtask), before the loop can send anything on.
   */
  settle(ack: Ack): void {
    if (this.#replay.settled.get(ack.id) === ack.state) return; // written before the hand-over (`settleNow`)
    this.#replay.settle(ack.id, ack.state);
    this.#settles.push(line({ t: "settle", id: ack.id, state: ack.state }));
    if (this.#settles.length > 1) return;
    queueMicrotask(() => {
      try {
        this.flush();
      } catch {
        // Kept for the next write (accept, flush or close), which tries them again first.
      }
    });
  }

  /**
   * Record the end states of items about to be handed to pi, synchronously, before they are: a crash after this
   * cannot deliver them again. Throws when they cannot be written (none of them is then on disk, and the caller
   * keeps the items). Settles not written yet go first.
   */
  settleNow(acks: readonly Ack[]): void {
    this.flush();
    this.#write(acks.map((ack) => line({ t: "settle", id: ack.id, state: ack.state })).join(""), acks.length);
    for (const ack of acks) this.#replay.settle(ack.id, ack.state);
    this.#maybeCompact();
  }

  /**
   * Record items settled before a hand-over that pi dropped as pending again, synchronously (a later process of the
   * session then delivers them). Throws when that cannot be written.
   */
  reopen(items: readonly SteeringItem[]): void {
    this.flush();
    const text = items.map((item) => line({ t: "reopen", item })).join("");
    this.#write(text, items.length);
    for (const item of items) {
      this.#replay.settled.delete(item.id);
      this.#replay.accept(item, bytes(line({ t: "accept", item })));
    }
    this.#maybeCompact();
  }

  /** Write the settles not written yet; on failure they stay, to be tried again. */
  flush(): void {
    if (this.#settles.length === 0 || this.#fd === undefined) return;
    const settles = this.#settles;
    this.#settles = [];
    try {
      this.#write(settles.join(""), settles.length);
    } catch (error) {
      this.#settles.unshift(...settles);
      throw error;
    }
    this.#maybeCompact();
  }

  close(): void {
    if (this.#fd === undefined) return;
    try {
      this.flush();
    } finally {
      closeSync(this.#fd);
      this.#fd = undefined;
    }
  }

  /** Append whole records: a write cut short (disk full) is cut off again, so the file ends with a whole line. */
  #write(text: string, records: number): void {
    if (this.#fd === undefined) throw new Error(`steering journal ${this.path} is closed`);
    const data = Buffer.from(text);
    let written = 0;
    try {
      while (written < data.length) written += writeSync(this.#fd, data, written);
    } catch (error) {
      if (written > 0) ftruncateSync(this.#fd, this.#size);
      throw error;
    }
    this.#size += data.length;
    this.#records += records;
  }

  #shouldCompact(): boolean {
    return this.#records > 2 * this.#replay.keptRecords() + 100 || this.#size >= this.#checkAt;
  }

  #maybeCompact(): void {
    if (!this.#shouldCompact()) return;
    try {
      this.#compact();
    } catch {
      // The journal stays as it is, whole; the next write tries again.
    }
  }

  /** Rewrite the file to what it holds (only if that is at most half of it, or it has many settled records). */
  #compact(): void {
    if (this.#fd === undefined) return;
    const text = this.#replay.compacted();
    const size = bytes(text);
    const manyRecords = this.#records > 2 * this.#replay.keptRecords() + 100;
    if (manyRecords || 2 * size <= this.#size) {
      writeFileAtomicSync(this.path, text);
      const fd = openSync(this.path, "a", 0o600);
      closeSync(this.#fd);
      this.#fd = fd;
      this.#size = fstatSync(fd).size;
      this.#records = this.#replay.keptRecords();
      this.#settles = []; // the rewrite holds them
    }
    this.#checkAt = Math.max(JOURNAL_COMPACT_MIN_BYTES, 2 * this.#size);
  }
}
