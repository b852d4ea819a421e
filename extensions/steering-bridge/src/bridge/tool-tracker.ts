import type { ToolCallInFlight } from "./cancel.ts";

/**
 * Tool calls running now, from pi's tool_execution_start / tool_execution_end events: what `steer/status` shows
 * when the running pi cannot be asked directly (`pi.getToolCallsInFlight()` of the patch is preferred).
 */
export class ToolTracker {
  readonly #running = new Map<string, ToolCallInFlight>();
  readonly #args = new Map<string, unknown>();

  start(callId: string, tool: string, args?: unknown, startedAt = Date.now()): void {
    this.#running.set(callId, { callId, tool, startedAt });
    if (args !== undefined) this.#args.set(callId, args);
  }

  end(callId: string): void {
    this.#running.delete(callId);
    this.#args.delete(callId);
  }

  clear(): void {
    this.#running.clear();
    this.#args.clear();
  }

  /** The arguments a running call was started with (from pi's tool_execution_start). */
  argsOf(callId: string): unknown {
    return this.#args.get(callId);
  }

  list(): ToolCallInFlight[] {
    return [...this.#running.values()];
  }
}
