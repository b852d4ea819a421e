/**
 * OpenAI chat completions (`POST /v1/chat/completions`, `data:` chunks then `data: [DONE]`): the adapter
 * for the shared server, and its strict validator (the API's 400s for empty content and for unpaired tool
 * calls and results).
 */
import { randomUUID } from "node:crypto";
import { completionObject, planChunks } from "./chunks.ts";
import type { ChatMessage } from "./types.ts";
import type { StrictError, WireAdapter } from "./wire.ts";
import { dataEvent } from "./wire.ts";

/** Usage in pi-ai's terms from a chat-completions usage object (what pi-ai's client computes). */
function reported(usage: Record<string, unknown>) {
  const details = (usage["prompt_tokens_details"] ?? {}) as { cached_tokens?: number; cache_write_tokens?: number };
  const cacheWrite = details.cache_write_tokens ?? 0;
  const cacheRead = details.cached_tokens ?? 0;
  return {
    input: Math.max(0, Number(usage["prompt_tokens"] ?? 0) - cacheRead - cacheWrite),
    output: Number(usage["completion_tokens"] ?? 0),
    cacheRead,
    cacheWrite,
  };
}

/**
 * Why the chat-completions API would refuse `body` (messages part), in its own words, or undefined:
 * no messages, empty content (an empty parts array; an assistant message with neither content nor
 * tool calls), a `tool` message not answering a preceding `tool_calls`, tool calls left without answers.
 */
export function validateChatCompletionsRequest(body: Record<string, unknown>): StrictError | undefined {
  const messages = Array.isArray(body["messages"]) ? (body["messages"] as ChatMessage[]) : [];
  if (messages.length === 0) return { status: 400, message: "[] is too short - 'messages'" };
  for (const [i, message] of messages.entries()) {
    const content = (message as { content?: unknown }).content;
    if (Array.isArray(content) && content.length === 0) {
      return {
        status: 400,
        message: `Invalid 'messages[${i}].content': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
      };
    }
    const calls = (message as { tool_calls?: unknown }).tool_calls;
    const hasCalls = Array.isArray(calls) && calls.length > 0;
    if (message.role === "assistant" && !hasCalls && (content === undefined || content === null)) {
      return { status: 400, message: `Invalid value for 'messages[${i}].content': expected a string, got null.` };
    }
  }
  let open: string[] = [];
  for (const message of messages) {
    if (message.role === "tool") {
      const id = message.tool_call_id ?? "";
      if (!open.includes(id)) {
        return {
          status: 400,
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        };
      }
      open = open.filter((other) => other !== id);
      continue;
    }
    if (open.length > 0) break;
    if (message.role === "assistant" && Array.isArray(message.tool_calls)) {
      open = message.tool_calls.map((call) => String((call as { id?: unknown }).id ?? ""));
    }
  }
  if (open.length > 0) {
    return {
      status: 400,
      message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(", ")}`,
    };
  }
  return undefined;
}

/** The chat-completions adapter (stateless). */
export function chatCompletionsAdapter(): WireAdapter {
  return {
    format: "openai-completions",
    basePath: "/v1",
    matches: (path) => path.endsWith("/chat/completions"),
    messagesOf: (body) => (Array.isArray(body["messages"]) ? (body["messages"] as ChatMessage[]) : []),
    modelOf: (body) => (typeof body["model"] === "string" ? body["model"] : undefined),
    validate: validateChatCompletionsRequest,
    errorBody: (status, message) => ({
      error: { message, type: status === 400 ? "invalid_request_error" : "server_error", param: null, code: null },
    }),
    streamError: (message) => ({
      text: dataEvent({ error: { message, type: "server_error", param: null, code: null } }),
      delta: false,
    }),
    plan(response, ctx) {
      const streamOptions = ctx.body["stream_options"] as { include_usage?: boolean } | undefined;
      const chunks = planChunks(response, {
        id: `chatcmpl-loopback-${ctx.requestIndex}-${randomUUID().slice(0, 8)}`,
        model: ctx.model,
        created: Math.floor(Date.now() / 1000),
        requestIndex: ctx.requestIndex,
        includeUsage: streamOptions?.include_usage === true,
        promptChars: ctx.promptChars,
      });
      const frames = chunks.map((chunk) => {
        const usage = chunk.data["usage"] as Record<string, unknown> | undefined;
        return { text: dataEvent(chunk.data), delta: chunk.delta, ...(usage ? { usage: reported(usage) } : {}) };
      });
      frames.push({ text: "data: [DONE]\n\n", delta: false });
      return frames;
    },
    complete(response, ctx) {
      return completionObject(response, {
        id: `chatcmpl-loopback-${ctx.requestIndex}`,
        model: ctx.model,
        created: Math.floor(Date.now() / 1000),
        requestIndex: ctx.requestIndex,
        includeUsage: true,
        promptChars: ctx.promptChars,
      });
    },
  };
}
