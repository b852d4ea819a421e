import type { DeliverySite, SteeringItem } from "./types.ts";

/** customType of a steering message the model sees (shown in the transcript). */
export const STEERING_MESSAGE_TYPE = "steering:message";
/** customType of a hidden system reminder the model sees. */
export const STEERING_REMINDER_TYPE = "steering:reminder";
/** customType of an inbox note (a user-role message for the model, drained at pre_compact / post_compact). */
export const STEERING_NOTE_TYPE = "steering:note";
/** customType of an audit record: written to the session file, never sent to the model. */
export const STEERING_AUDIT_TYPE = "steering:audit";
/** The audit type as versions before `steering:<kind>` spelled it (they also wrote audit records as messages). */
const FORMER_AUDIT_TYPE = "steering-audit";

/** What the transcript keeps about where a steering message came from. */
export interface SteeringMessageDetails {
  id: string;
  kind: SteeringItem["kind"];
  mode?: SteeringItem["mode"];
  source: string;
  /** Where it was delivered or audited ("shutdown": audited when the session ended). */
  seam: DeliverySite | "shutdown";
  iteration: number;
}

/** pi's custom message shape (structural: this module must not import pi at run time). */
export interface SteeringCustomMessage {
  role: "custom";
  customType: string;
  content: string;
  display: boolean;
  details: SteeringMessageDetails;
  timestamp: number;
}

/**
 * Render a delivered item as the message the loop appends. pi turns custom messages into user-role messages for
 * the model, so a message reads as the user speaking, a reminder is wrapped as a system reminder and hidden from
 * the TUI, and an audit_only item becomes an audit record that the `context` filter keeps away from the model.
 */
export function renderItem(
  item: SteeringItem,
  seam: SteeringMessageDetails["seam"],
  iteration: number,
): SteeringCustomMessage {
  const { id, kind, mode, source } = item;
  const details: SteeringMessageDetails = { id, kind, ...(mode !== undefined && { mode }), source, seam, iteration };
  let customType = STEERING_MESSAGE_TYPE;
  let content = item.content;
  let display = true;
  if (mode === "audit_only") customType = STEERING_AUDIT_TYPE;
  else if (kind === "reminder") {
    customType = STEERING_REMINDER_TYPE;
    content = `<system-reminder source="${escapeAttribute(source)}">\n${content}\n</system-reminder>`;
    display = false;
  } else if (kind === "note") customType = STEERING_NOTE_TYPE;
  return { role: "custom", customType, content, display, details, timestamp: Date.now() };
}

/** True for messages that must never reach the model (audit records). */
export function isAuditMessage(message: unknown): boolean {
  const custom = message as { role?: unknown; customType?: unknown } | null | undefined;
  const type = custom?.customType;
  return custom?.role === "custom" && (type === STEERING_AUDIT_TYPE || type === FORMER_AUDIT_TYPE);
}

function escapeAttribute(value: string): string {
  return value.replace(/[&"<>]/g, (ch) => ({ "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;" })[ch] ?? ch);
}
