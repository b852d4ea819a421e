/** Largest frame (one JSON-RPC message plus its newline) either side accepts. */
export const MAX_FRAME_BYTES = 1024 * 1024;

export type FrameEvent = { type: "frame"; text: string } | { type: "oversized"; bytes: number };

/**
 * Splits a byte stream into newline-delimited frames. A frame longer than `maxBytes` is reported once as
 * oversized (as soon as it crosses the limit) and skipped up to its newline, so one bad message never desynchronises the stream or grows memory.
 */
export class LineFramer {
  readonly #maxBytes: number;
  #parts: Buffer[] = [];
  #size = 0;
  #skipping = false;

  constructor(maxBytes = MAX_FRAME_BYTES) {
    this.#maxBytes = maxBytes;
  }

  push(chunk: Buffer): FrameEvent[] {
    const events: FrameEvent[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (!this.#skipping) {
        if (this.#size + piece.length > this.#maxBytes) {
          // Reported at once (the peer learns before it finishes sending), then skipped up to the newline.
          events.push({ type: "oversized", bytes: this.#size + piece.length });
          this.#skipping = true;
          this.#parts = [];
          this.#size = 0;
        } else if (piece.length > 0) {
          this.#parts.push(piece);
          this.#size += piece.length;
        }
      }
      if (newline === -1) break;
      if (this.#skipping) {
        this.#skipping = false;
      } else {
        const text = Buffer.concat(this.#parts, this.#size).toString("utf8");
        this.#parts = [];
        this.#size = 0;
        if (text.trim() !== "") events.push({ type: "frame", text });
      }
      start = newline + 1;
    }
    return events;
  }

  /** True while a frame has begun and not ended (bytes buffered, or an oversized frame being skipped). */
  get partial(): boolean {
    return this.#size > 0 || this.#skipping;
  }

  /** True while an oversized frame is being skipped (the peer has not sent its newline yet). */
  get skipping(): boolean {
    return this.#skipping;
  }
}
