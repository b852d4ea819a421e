/**
 * The tool-call cancel contract of the pi-rails core patch (`pi.cancelToolCall`, `pi.getToolCallsInFlight`),
 * restated structurally so the bridge type-checks against stock pi too; on a pi without the patch feature
 * `cancel_tool_call` the bridge answers "unavailable" instead of calling it.
 */
export type CancelToolCallStatus = "cancelled" | "already_cancelled" | "not_found" | "timeout";

export interface CancelToolCallOptions {
  /** Default "cancelled by the host". */
  reason?: string;
  /** Default true: after the batch the model also gets a hidden reminder naming call, tool and reason. */
  injectReminder?: boolean;
  /** Default 5000: how long to wait for the tool to settle after its signal is aborted. */
  timeoutMs?: number;
}

export interface CancelToolCallResult {
  status: CancelToolCallStatus;
  callId: string;
  tool?: string;
  reason?: string;
}

export interface ToolCallInFlight {
  callId: string;
  tool: string;
  /** Epoch ms. */
  startedAt: number;
  iteration?: number;
}

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
