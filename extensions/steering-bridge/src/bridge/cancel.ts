/**
 * The tool-call cancel contract (types from `@pi-rails/agent-core/kit`): the bridge cancels through agent-core's
 * `ToolCallRegistry`, which runs pi's built-in tools one signal per call, on stock and patched pi alike.
 */
export type {
  CancelToolCallOptions,
  CancelToolCallResult,
  CancelToolCallStatus,
  ToolCallInFlight,
} from "@pi-rails/agent-core/kit";
