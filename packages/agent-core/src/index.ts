/**
 * @pi-rails/agent-core: the pi agent loop with a per-delta stream hook (abort, inject, retry inside the run)
 * and a checkpoint at every loop seam, plus the typed logic behind those call sites.
 *
 * The loop itself (`Agent`, `agentLoop`, ...) is pi-agent-core 1.6.0 with the pi-rails patch applied; it is
 * bundled into this package at build time because a pnpm patch does not travel to npm.
 */
import { type AgentOptions, type AgentState, Agent as PatchedAgent } from "@earendil-works/pi-agent-core";
import {
  type CancelToolCallOptions,
  type CancelToolCallResult,
  type ToolCallInFlight,
  ToolCallRegistry,
} from "./tools/call-registry.ts";
import { describeCancelledCall } from "./tools/cancelled.ts";

export * from "@earendil-works/pi-agent-core";
export * from "./kit.ts";
export { type StreamAbortLike, showStreamAbortNotice, streamAbortNotice } from "./pi/stream-abort-notice.ts";

/**
 * The patched `Agent`, whose tool calls can be cancelled one at a time: each tool it is given runs through a
 * {@link ToolCallRegistry}, and `cancelToolCall` stops one call while the batch and the run go on. The model is
 * told in `describeCancelledCall`'s words unless the caller passes its own; the reminder is steered in, so it
 * follows the batch.
 */
export class Agent extends PatchedAgent {
  readonly #toolCalls: ToolCallRegistry;

  constructor(options: AgentOptions) {
    super(options);
    this.#toolCalls = new ToolCallRegistry({
      describe: describeCancelledCall,
      onReminder: ({ reminderText }) => this.steer({ role: "user", content: reminderText, timestamp: Date.now() }),
    });
    wrapToolsOf(this.state, (tools) => tools.map((tool) => this.#toolCalls.wrap(tool)));
  }

  /** Cancel one tool call in flight: the model is told it was cancelled by the host, and the run goes on. */
  cancelToolCall(callId: string, options: CancelToolCallOptions = {}): Promise<CancelToolCallResult> {
    return this.#toolCalls.cancel(callId, options);
  }

  /** The tool calls executing now, with the ids `cancelToolCall` takes. */
  getToolCallsInFlight(): ToolCallInFlight[] {
    return this.#toolCalls.inFlight();
  }
}

/** Route every assignment of `state.tools` (the constructor's included) through `wrap`. */
function wrapToolsOf(state: AgentState, wrap: (tools: AgentState["tools"]) => AgentState["tools"]): void {
  const own = Object.getOwnPropertyDescriptor(state, "tools");
  if (!own?.get || !own.set) throw new TypeError("pi-agent-core's AgentState no longer has a tools accessor");
  const { get, set } = own;
  Object.defineProperty(state, "tools", {
    ...own,
    get,
    set: (tools: AgentState["tools"]) => set.call(state, wrap(tools)),
  });
  state.tools = get.call(state);
}
