/**
 * Tells, from inside the patched stream, when a new assistant response begins. pi hands `message_start` to
 * extensions through an async queue, so it can arrive after the first deltas of the response it announces; the
 * synchronous `stream_text` events carry what is needed instead: a new `attempt` (a retry after an abort), or
 * content-block indexes starting over (a new message: indexes only grow within one).
 */
export class ResponseBoundary {
  private attempt = -1;
  private contentIndex = -1;

  /** `fresh`: this delta is the first of its content block (`accumulated` is just this chunk). */
  isNewResponse(attempt: number, contentIndex: number, fresh: boolean): boolean {
    const isNew =
      attempt !== this.attempt || contentIndex < this.contentIndex || (contentIndex === this.contentIndex && fresh);
    this.attempt = attempt;
    this.contentIndex = contentIndex;
    return isNew;
  }
}
