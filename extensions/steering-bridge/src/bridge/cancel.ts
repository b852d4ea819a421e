import type { CancelToolCallOptions, CancelToolCallResult, ToolCallInFlight } from "@pi-rails/agent-core/kit";

/**
 * The tool-call cancel contract of the pi-rails core patch (`pi.cancelToolCall`, `pi.getToolCallsInFlight`; types
 * from `@pi-rails/agent-core/kit`). On a pi without the patch feature `cancel_tool_call` the methods are missing at
 * run time, so the bridge checks for them and answers "unavailable" instead of calling them.
 */
export type {
  CancelToolCallOptions,
  CancelToolCallResult,
  CancelToolCallStatus,
  ToolCallInFlight,
} from "@pi-rails/agent-core/kit";

/** What the patched pi adds to the extension API (absent on stock pi). */
export interface CancelCapableApi {
  cancelToolCall(callId: string, options?: CancelToolCallOptions): Promise<CancelToolCallResult>;
  getToolCallsInFlight(): ToolCallInFlight[];
}

export function hasCancelApi(api: unknown): api is CancelCapableApi {
  const candidate = typeof api === "object" ? (api as Partial<CancelCapableApi> | null) : undefined;
  return typeof candidate?.cancelToolCall === "function" && typeof candidate.getToolCallsInFlight === "function";
}
