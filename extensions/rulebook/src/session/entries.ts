import { defineSessionEntry } from "@pi-rails/agent-core/kit";

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined;

/** Which rules were auto-attached (to which file), so a resumed session does not attach them again. */
export const ATTACHED_ENTRY = defineSessionEntry("rulebook:attached", (data) => {
  const { names, path } = (data ?? {}) as { names?: unknown; path?: unknown };
  const list = strings(names);
  return list && { names: list, path: typeof path === "string" ? path : "" };
});

/** The warnings shown to the user (not sent to the model): what a session said, readable from its file. */
export const WARNINGS_ENTRY = defineSessionEntry("rulebook:warnings", (data) => {
  const messages = strings((data as { messages?: unknown } | null | undefined)?.messages);
  return messages && { messages };
});
