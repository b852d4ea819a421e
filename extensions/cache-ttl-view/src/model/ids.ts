import type { ViewMessage } from "./messages.ts";

/**
 * Stable identities. pi's context event hands us deep copies without entry ids, so a message is known by its role,
 * timestamp (and tool call id); a block id is a short hash of that key, short enough for the model to quote back
 * to `context_restore`, stable across processes so persisted prune sets apply after a reload.
 */

/** 32-bit FNV-1a as 8 hex chars. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** Key of a message (before de-duplication of equal keys). */
export function rawMessageKey(m: ViewMessage): string {
  if (m.role === "toolResult") return `r:${String((m as { toolCallId?: unknown }).toolCallId)}`;
  if (m.role === "custom") return `c:${String((m as { customType?: unknown }).customType)}:${m.timestamp ?? ""}`;
  return `${m.role}:${m.timestamp ?? ""}`;
}

/** Keys of all messages; a repeated key gets `#2`, `#3`, ... in order of appearance. */
export function messageKeys(messages: readonly ViewMessage[]): string[] {
  const seen = new Map<string, number>();
  const keys = new Array<string>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const raw = rawMessageKey(messages[i] as ViewMessage);
    const n = (seen.get(raw) ?? 0) + 1;
    seen.set(raw, n);
    keys[i] = n === 1 ? raw : `${raw}#${n}`;
  }
  return keys;
}

/** Block id of a tool call and its result. */
export const toolBlockId = (toolCallId: string): string => shortHash(`t:${toolCallId}`);
/** Block id of a message's prose (user / assistant text and thinking / custom / user bash). */
export const textBlockId = (messageKey: string): string => shortHash(`m:${messageKey}`);
/** Block id of one image part of a message. */
export const imageBlockId = (messageKey: string, part: number): string => shortHash(`i:${messageKey}#${part}`);
