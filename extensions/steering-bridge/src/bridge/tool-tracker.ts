import type { ToolCallInFlight } from "./cancel.ts";

/**
 * Tool calls running now, from pi's tool_execution_start / tool_execution_end events: what `steer/status` shows
 * when the running pi cannot be asked directly (`pi.getToolCallsInFlight()` of the patch is preferred).
 */
export class ToolTracker {
  readonly #running = new Map<string, { call: ToolCallInFlight; args: unknown }>();

  start(callId: string, tool: string, args?: unknown, startedAt = Date.now()): void {
    this.#running.set(callId, { call: { callId, tool, startedAt }, args });
  }

  end(callId: string): void {
    this.#running.delete(callId);
  }

  clear(): void {
    this.#running.clear();
  }

  /** The arguments a running call was started with (from pi's tool_execution_start). */
  argsOf(callId: string): unknown {
    return this.#running.get(callId)?.args;
  }

  list(): ToolCallInFlight[] {
    return [...this.#running.values()].map((running) => running.call);
  }
}
