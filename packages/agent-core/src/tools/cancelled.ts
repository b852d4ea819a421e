/**
 * Recognising a tool result the host cancelled. The loop returns such a call to the model with `isError: false`
 * and `details.cancelled = { byHost: true, reason }`: guards and renderers that treat errors specially need to
 * tell "the host stopped it" from "the tool succeeded" without parsing the text.
 */

/** The marker a host-cancelled tool result carries in `details.cancelled`. */
export interface HostCancellation {
  byHost: true;
  reason: string;
}

/** The cancellation marker of a tool result's `details`, or undefined when the host did not cancel it. */
export function hostCancellationOf(details: unknown): HostCancellation | undefined {
  const marker = (details as { cancelled?: { byHost?: unknown; reason?: unknown } } | null | undefined)?.cancelled;
  if (marker?.byHost !== true || typeof marker.reason !== "string") return undefined;
  return { byHost: true, reason: marker.reason };
}

/** True when a tool result's `details` say the host cancelled the call in flight. */
export function isCancelledByHost(details: unknown): boolean {
  return hostCancellationOf(details) !== undefined;
}

/**
 * The id of a tool call as the model knows it, or undefined when the model never saw one. pi's ids are not always
 * the provider's: on OpenAI Responses pi-ai joins `call_id|item_id` (the model and the API know `call_…`); on
 * Gemini, a call without an id gets one made up as `<tool>_<ms>_<n>`, which the model never saw. Text for the model
 * names only an id it can match against its own call.
 */
export function modelFacingCallId(callId: string, tool: string): string | undefined {
  const bar = callId.indexOf("|");
  if (bar > 0) return callId.slice(0, bar);
  if (isMadeUpGeminiId(callId, tool)) return undefined;
  return callId;
}

/** pi-ai's Gemini id for a call the API sent without one: `${name}_${Date.now()}_${counter}`. */
function isMadeUpGeminiId(callId: string, tool: string): boolean {
  if (!callId.startsWith(`${tool}_`)) return false;
  return /^\d{10,}_\d+$/.test(callId.slice(tool.length + 1));
}

/** The reason of a cancel that gave none: the texts then say only that the host cancelled the call. */
export const DEFAULT_CANCEL_REASON = "cancelled by the host";

/** ": <reason>", or nothing when the reason is the default one (it would only repeat "cancelled by the host"). */
function because(reason: string): string {
  const given = reason.trim();
  return given === "" || given === DEFAULT_CANCEL_REASON ? "" : `: ${given}`;
}

/** The text a host-cancelled call returns to the model: which call (by an id it knows, if any), which tool, why. */
export function cancelledCallText(callId: string, tool: string, reason: string): string {
  const id = modelFacingCallId(callId, tool);
  return id === undefined
    ? `The ${tool} tool call was cancelled by the host${because(reason)}`
    : `Tool call ${id} (${tool}) was cancelled by the host${because(reason)}`;
}

/** The reminder after a batch with a cancelled call: the same naming rule, and that it was not a tool failure. */
export function cancelReminderTextFor(callId: string, tool: string, reason: string): string {
  const id = modelFacingCallId(callId, tool);
  const call = id === undefined ? `a ${tool} tool call` : `tool call ${id} (${tool})`;
  return `The host cancelled ${call} while it ran${because(reason)}. This was not a tool failure; do not run it again unless asked to.`;
}

/** The custom type of the hidden reminder pi sends after a batch with a host-cancelled call. */
export const CANCEL_REMINDER_TYPE = "tool-call-cancelled";

/**
 * The host's wording for a call it cancels, in the shape `cancelToolCall`'s `describe` option takes: the result and
 * the reminder the model gets name only an id the model knows (pi would otherwise name its own id), and the
 * reminder's custom type (the patched pi carries no wording and no type of its own).
 */
export function describeCancelledCall(cancellation: { callId: string; tool: string; reason: string }): {
  result: string;
  reminder: string;
  customType: string;
} {
  const { callId, tool, reason } = cancellation;
  return {
    result: cancelledCallText(callId, tool, reason),
    reminder: cancelReminderTextFor(callId, tool, reason),
    customType: CANCEL_REMINDER_TYPE,
  };
}
