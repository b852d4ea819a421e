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
  if (typeof details !== "object" || details === null) return undefined;
  const cancelled = (details as { cancelled?: unknown }).cancelled;
  if (typeof cancelled !== "object" || cancelled === null) return undefined;
  const marker = cancelled as { byHost?: unknown; reason?: unknown };
  if (marker.byHost !== true || typeof marker.reason !== "string") return undefined;
  return { byHost: true, reason: marker.reason };
}

/** True when a tool result's `details` say the host cancelled the call in flight. */
export function isCancelledByHost(details: unknown): boolean {
  return hostCancellationOf(details) !== undefined;
}
