/**
 * The shape of pi's agent messages as this package reads them. Structural on purpose: the pure modules work on
 * plain data (the `context` event's deep copy, or a session file being replayed) and never import pi.
 */

export interface TextPart {
  type: "text";
  text: string;
}
export interface ImagePart {
  type: "image";
  data: string;
  mimeType: string;
}
export interface ThinkingPart {
  type: "thinking";
  thinking: string;
  [key: string]: unknown;
}
export interface ToolCallPart {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  [key: string]: unknown;
}

export interface UsageLike {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export interface UserMsg {
  role: "user";
  content: string | (TextPart | ImagePart)[];
  timestamp: number;
}
export interface AssistantMsg {
  role: "assistant";
  content: (TextPart | ThinkingPart | ToolCallPart)[];
  provider?: string;
  model?: string;
  api?: string;
  usage?: UsageLike;
  timestamp: number;
  [key: string]: unknown;
}
export interface ToolResultMsg {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextPart | ImagePart)[];
  isError?: boolean;
  timestamp: number;
  [key: string]: unknown;
}
export interface CustomMsg {
  role: "custom";
  customType: string;
  content: string | (TextPart | ImagePart)[];
  display?: boolean;
  details?: unknown;
  timestamp: number;
}
export interface BashExecutionMsg {
  role: "bashExecution";
  command: string;
  output: string;
  timestamp: number;
  [key: string]: unknown;
}
/**
 * compactionSummary, branchSummary, pi 1.6's system messages (the prompt and tool loadout, in the request's
 * transcript: `context_with_system`) and anything else pi may add: passed through untouched.
 */
export interface OtherMsg {
  role: string;
  timestamp?: number;
  [key: string]: unknown;
}

export type ViewMessage = UserMsg | AssistantMsg | ToolResultMsg | CustomMsg | BashExecutionMsg | OtherMsg;

export const isUser = (m: ViewMessage): m is UserMsg => m.role === "user";
export const isAssistant = (m: ViewMessage): m is AssistantMsg => m.role === "assistant";
export const isToolResult = (m: ViewMessage): m is ToolResultMsg => m.role === "toolResult";
export const isCustom = (m: ViewMessage): m is CustomMsg => m.role === "custom";
export const isBashExecution = (m: ViewMessage): m is BashExecutionMsg => m.role === "bashExecution";

/**
 * Whether a message is what a custom message after it is anchored at (see `anchorBefore`): neither a custom message
 * nor a system message. pi 1.6 folds the system messages before a compaction's kept range into the compaction's
 * checkpoint, so a custom message anchored at one would change its key when pi compacts.
 */
export const anchorsCustom = (m: ViewMessage): boolean => m.role !== "custom" && m.role !== "system";

/** Summaries pi writes (compaction, branch) are never pruned: they already are the short form. */
export function isSummary(m: ViewMessage): boolean {
  return m.role === "compactionSummary" || m.role === "branchSummary";
}

/** Parts of a user/custom/toolResult content, string content as one text part. */
export function partsOf(content: string | (TextPart | ImagePart)[]): (TextPart | ImagePart)[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/** Joined text of text parts. */
export function textOf(parts: readonly { type: string; text?: string }[]): string {
  let out = "";
  for (const part of parts) {
    if (part.type === "text" && typeof part.text === "string") out += out ? `\n${part.text}` : part.text;
  }
  return out;
}
