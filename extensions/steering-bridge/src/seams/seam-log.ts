import type { LoopSeam } from "@pi-rails/agent-core/kit";

/**
 * One pass through a loop seam as steering-bridge reports it (`steer/checkpoint`, `pi-rails:steering:checkpoint`,
 * `/seams`, `pi-steer watch`). pi's `loop_checkpoint` counts every message delivered at the seam as one number;
 * steering-bridge counts its own inbox notes apart (it knows which of the messages it handed pi were notes).
 */
export interface SteeringCheckpoint {
  /** The loop iteration (1-based). */
  iteration: number;
  kind: LoopSeam;
  /** Messages delivered at this seam other than steering-bridge's inbox notes (other extensions' included). */
  delivered: number;
  /** steering-bridge's inbox notes delivered at this seam (pre_compact / post_compact). */
  inboxDelivered: number;
  /** The tool batch was skipped (pre_tool_dispatch). */
  dispatchSkipped: boolean;
}

/** A bounded record of the latest loop seam passes: what a host sees when it asks "where is the agent now?". */
export class SeamLog {
  readonly #limit: number;
  readonly #entries: SteeringCheckpoint[] = [];

  constructor(limit = 50) {
    this.#limit = limit;
  }

  record(checkpoint: SteeringCheckpoint): void {
    this.#entries.push(checkpoint);
    if (this.#entries.length > this.#limit) this.#entries.splice(0, this.#entries.length - this.#limit);
  }

  latest(count = this.#limit): readonly SteeringCheckpoint[] {
    return this.#entries.slice(-count);
  }

  clear(): void {
    this.#entries.length = 0;
  }
}

/** One line per pass, oldest first, for the `/seams` command. */
export function formatSeamLog(entries: readonly SteeringCheckpoint[]): string {
  if (entries.length === 0) return "No loop seam has fired yet in this session.";
  return entries.map(formatCheckpoint).join("\n");
}

/** One seam pass in a line (`#1 pre_tool_dispatch (delivered 1, tool batch skipped)`): `/seams` and `pi-steer watch`. */
export function formatCheckpoint(c: SteeringCheckpoint): string {
  const extra = [
    c.delivered > 0 ? `delivered ${c.delivered}` : "",
    c.inboxDelivered > 0 ? `inbox ${c.inboxDelivered}` : "",
    c.dispatchSkipped ? "tool batch skipped" : "",
  ].filter(Boolean);
  return `#${c.iteration} ${c.kind}${extra.length > 0 ? ` (${extra.join(", ")})` : ""}`;
}
