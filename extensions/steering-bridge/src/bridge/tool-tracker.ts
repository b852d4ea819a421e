import type { ToolCallInFlight } from "./cancel.ts";

/**
 * Tool calls running now, from pi's tool_execution_start / tool_execution_end events: what `steer/status` shows
 * when the running pi cannot be asked directly (`pi.getToolCallsInFlight()` of the patch is preferred).
 */
export class ToolTracker {
  readonly #running = new Map<string, ToolCallInFlight>();

  start(callId: string, tool: string, iteration?: number, startedAt = Date.now()): void {
    const call: ToolCallInFlight = { callId, tool, startedAt };
    if (iteration !== undefined) call.iteration = iteration;
    this.#running.set(callId, call);
  }

  end(callId: string): void {
    this.#running.delete(callId);
  }

  clear(): void {
    this.#running.clear();
  }

  list(): ToolCallInFlight[] {
    return [...this.#running.values()];
  }
}
