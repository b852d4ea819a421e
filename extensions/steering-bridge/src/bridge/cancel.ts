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

/** True when `api` carries the patched cancel methods. */
export function hasCancelApi(api: unknown): api is CancelCapableApi {
  return (
    typeof api === "object" &&
    api !== null &&
    typeof (api as Partial<CancelCapableApi>).cancelToolCall === "function" &&
    typeof (api as Partial<CancelCapableApi>).getToolCallsInFlight === "function"
  );
}
