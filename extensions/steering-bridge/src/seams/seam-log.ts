import type { LoopCheckpoint } from "@pi-rails/agent-core/kit";

/** A bounded record of the latest loop seam passes: what a host sees when it asks "where is the agent now?". */
export class SeamLog {
  readonly #limit: number;
  readonly #entries: LoopCheckpoint[] = [];

  constructor(limit = 50) {
    this.#limit = limit;
  }

  record(checkpoint: LoopCheckpoint): void {
    this.#entries.push(checkpoint);
    if (this.#entries.length > this.#limit) this.#entries.splice(0, this.#entries.length - this.#limit);
  }

  latest(count = this.#limit): readonly LoopCheckpoint[] {
    return this.#entries.slice(-count);
  }

  clear(): void {
    this.#entries.length = 0;
  }
}

/** One line per pass, oldest first, for the `/seams` command. */
export function formatSeamLog(entries: readonly LoopCheckpoint[]): string {
  if (entries.length === 0) return "No loop seam has fired yet in this session.";
  return entries.map(formatCheckpoint).join("\n");
}

/** One seam pass in a line (`#1 pre_tool_dispatch (delivered 1, tool batch skipped)`): `/seams` and `pi-steer watch`. */
export function formatCheckpoint(c: LoopCheckpoint): string {
  const extra = [
    c.delivered > 0 ? `delivered ${c.delivered}` : "",
    c.inboxDelivered > 0 ? `inbox ${c.inboxDelivered}` : "",
    c.dispatchSkipped ? "tool batch skipped" : "",
  ].filter(Boolean);
  return `#${c.iteration} ${c.kind}${extra.length > 0 ? ` (${extra.join(", ")})` : ""}`;
}
