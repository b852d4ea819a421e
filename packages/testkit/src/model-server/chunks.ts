/**
 * Turns a ScriptedResponse into the exact chat-completions chunks the server streams.
 * Pure (no I/O) so the wire format can be unit-tested and the server stays a thin writer.
 */
import type { ScriptedResponse } from "./types.ts";
import { argumentsText, scriptedUsage } from "./usage.ts";

export { argumentsText };

/** One `data:` payload of the SSE stream. `delta` marks content deltas (thinking, text, tool call). */
export interface PlannedChunk {
  data: Record<string, unknown>;
  delta: boolean;
}

export interface ChunkContext {
  /** Completion id shared by every chunk of one response. */
  id: string;
  model: string;
  created: number;
  requestIndex: number;
  /** The client asked for `stream_options.include_usage`. */
  includeUsage: boolean;
  /** Characters in the request's messages, for the default usage estimate. */
  promptChars: number;
}

export const DEFAULT_CHUNK_SIZE = 4;

/** Split by code points (never inside a surrogate pair) into slices of `size`. */
export function splitText(text: string, size: number): string[] {
  const points = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const slices: string[] = [];
  for (let i = 0; i < points.length; i += step) {
    slices.push(points.slice(i, i + step).join(""));
  }
  return slices;
}

/** Default finish reason: `tool_calls` when the response calls tools, else `stop`. */
export function finishReasonOf(response: ScriptedResponse): string {
  return response.finishReason ?? (response.toolCalls?.length ? "tool_calls" : "stop");
}

/**
 * Usage in chat-completions terms: `prompt_tokens` includes cached tokens, which `prompt_tokens_details` breaks
 * out: `cached_tokens` the cache reads (OpenAI's and OpenRouter's documented meaning), `cache_write_tokens` the
 * writes, a separate count as OpenRouter-compatible providers send it (pi-ai 1.6 reads them so).
 */
export function usageOf(response: ScriptedResponse, promptChars: number) {
  const usage = scriptedUsage(response, promptChars);
  const prompt_tokens = usage.prompt_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
  const completion_tokens = usage.completion_tokens;
  return {
    prompt_tokens,
    completion_tokens,
    total_tokens: prompt_tokens + completion_tokens,
    ...(usage.cache_read_tokens || usage.cache_write_tokens
      ? {
          prompt_tokens_details: {
            cached_tokens: usage.cache_read_tokens,
            ...(usage.cache_write_tokens ? { cache_write_tokens: usage.cache_write_tokens } : {}),
          },
        }
      : {}),
  };
}

export function toolCallId(response: ScriptedResponse, requestIndex: number, position: number): string {
  return response.toolCalls?.[position]?.id ?? `call_${requestIndex}_${position}`;
}

/** The chunks of one streamed response, in order, without the final `[DONE]` marker. */
export function planChunks(response: ScriptedResponse, ctx: ChunkContext): PlannedChunk[] {
  const size = response.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const base = { id: ctx.id, object: "chat.completion.chunk", created: ctx.created, model: ctx.model };
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks: PlannedChunk[] = [{ data: choice({ role: "assistant", content: "" }), delta: false }];

  const reasoningField = response.reasoningField ?? "reasoning_content";
  for (const slice of splitText(response.thinkingRedacted ? "" : (response.thinking ?? ""), size)) {
    chunks.push({ data: choice({ [reasoningField]: slice }), delta: true });
  }
  for (const slice of splitText(response.text ?? "", size)) {
    chunks.push({ data: choice({ content: slice }), delta: true });
  }
  (response.toolCalls ?? []).forEach((call, position) => {
    const slices = splitText(argumentsText(call.arguments), size);
    // The first delta of a call carries id and name (as OpenAI does); later ones only argument text.
    const [first = "", ...rest] = slices;
    chunks.push({
      data: choice({
        tool_calls: [
          {
            index: position,
            id: toolCallId(response, ctx.requestIndex, position),
            type: "function",
            function: { name: call.name, arguments: first },
          },
        ],
      }),
      delta: true,
    });
    for (const slice of rest) {
      chunks.push({
        data: choice({ tool_calls: [{ index: position, function: { arguments: slice } }] }),
        delta: true,
      });
    }
  });

  chunks.push({ data: choice({}, finishReasonOf(response)), delta: false });
  if (ctx.includeUsage || response.usage) {
    chunks.push({ data: { ...base, choices: [], usage: usageOf(response, ctx.promptChars) }, delta: false });
  }
  return chunks;
}

/** A non-streamed `chat.completion` object, for clients that send `stream: false`. */
export function completionObject(response: ScriptedResponse, ctx: ChunkContext): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: response.text ?? null };
  if (response.thinking && !response.thinkingRedacted) {
    message[response.reasoningField ?? "reasoning_content"] = response.thinking;
  }
  if (response.toolCalls?.length) {
    message["tool_calls"] = response.toolCalls.map((call, position) => ({
      id: toolCallId(response, ctx.requestIndex, position),
      type: "function",
      function: { name: call.name, arguments: argumentsText(call.arguments) },
    }));
  }
  return {
    id: ctx.id,
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(response) }],
    usage: usageOf(response, ctx.promptChars),
  };
}
