/**
 * The usage a scripted answer reports, shared by every format so they bill the same answer alike.
 */
import type { ScriptedResponse, ScriptedUsage } from "./types.ts";

/** Tool-call arguments as the JSON text that goes over the wire. */
export function argumentsText(args: string | Record<string, unknown>): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

/** The scripted usage, else an estimate of 4 characters per token; cache counts default to 0. */
export function scriptedUsage(response: ScriptedResponse, promptChars: number): Required<ScriptedUsage> {
  const outputChars =
    (response.text?.length ?? 0) +
    (response.thinking?.length ?? 0) +
    (response.toolCalls ?? []).reduce((n, call) => n + call.name.length + argumentsText(call.arguments).length, 0);
  return {
    prompt_tokens: response.usage?.prompt_tokens ?? Math.ceil(promptChars / 4),
    completion_tokens: response.usage?.completion_tokens ?? Math.ceil(outputChars / 4),
    cache_read_tokens: response.usage?.cache_read_tokens ?? 0,
    cache_write_tokens: response.usage?.cache_write_tokens ?? 0,
  };
}
