import type { SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import type { SeamMessage } from "../checkpoints.ts";

/** A seam's message as a boundary entry: pi appends it to the session and the model reads it as a user message. */
export function boundaryDraft({ customType, content, display, details }: SeamMessage): SessionBoundaryDraft {
  return { type: "custom_message", customType, content, display, details };
}

/** The part of a session entry this module reads. */
export interface BranchEntry {
  id: string;
  type: string;
  customType?: string;
  content?: unknown;
  details?: unknown;
}

/**
 * Whether pi committed `messages` after the entry `after` on `branch` (the leaf when they were proposed): pi
 * appends a boundary's entries in order once every handler's proposal is valid, or drops them all. Each message
 * is matched by its type, content and details, in order, among the entries appended since.
 */
export function committedAfter(
  branch: readonly BranchEntry[],
  after: string | null,
  messages: readonly SeamMessage[],
): boolean {
  const start = after === null ? 0 : branch.findIndex((entry) => entry.id === after) + 1;
  if (after !== null && start === 0) return false;
  let next = 0;
  for (let i = start; i < branch.length && next < messages.length; i++) {
    const entry = branch[i]!;
    const message = messages[next]!;
    if (
      entry.type === "custom_message" &&
      entry.customType === message.customType &&
      entry.content === message.content &&
      JSON.stringify(entry.details) === JSON.stringify(message.details)
    ) {
      next++;
    }
  }
  return next === messages.length;
}

/** The tool calls of an assistant message (pi's `toolCall` content parts). */
export function toolCallsOf(message: { role?: unknown; content?: unknown }): { id: string; name: string }[] {
  if (message.role !== "assistant" || !Array.isArray(message.content)) return [];
  return message.content
    .filter((part): part is { type: "toolCall"; id: string; name: string } => part?.type === "toolCall")
    .map(({ id, name }) => ({ id, name }));
}
