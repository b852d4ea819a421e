/**
 * OpenAI Responses (`POST /v1/responses`, named SSE events): the planner, the strict validator and the
 * adapter for the shared server. Faithful to the public streaming docs: `response.created`,
 * `response.in_progress`, a reasoning item with summary parts (`response.reasoning_summary_part.added`,
 * `…_text.delta/done`, `…_part.done`) whose `encrypted_content` arrives with `response.output_item.done`,
 * a message item (`response.content_part.added`, `response.output_text.delta/done`), function_call items
 * (`response.function_call_arguments.delta/done`), and `response.completed` with the usage. Usage comes
 * only at the end, so an aborted attempt reports none.
 */
import { DEFAULT_CHUNK_SIZE, splitText } from "./chunks.ts";
import { signText } from "./signatures.ts";
import type { ChatMessage, ScriptedResponse } from "./types.ts";
import { argumentsText, scriptedUsage } from "./usage.ts";
import type { PlanContext, PlannedFrame, StrictError, WireAdapter } from "./wire.ts";
import { namedEvent } from "./wire.ts";

/**
 * What the server handed out and must see again unchanged (store: false, so the client carries it):
 * reasoning item id → its `encrypted_content`, and function_call item id → the reasoning item it needs.
 */
export interface IssuedResponsesItems {
  reasoning: Map<string, string>;
  functionCallReasoning: Map<string, string>;
}

export function newIssuedResponsesItems(): IssuedResponsesItems {
  return { reasoning: new Map(), functionCallReasoning: new Map() };
}

/** Default `call_id` of a scripted call. */
export function responsesCallId(response: ScriptedResponse, requestIndex: number, position: number): string {
  return response.toolCalls?.[position]?.id ?? `call_loopback_${requestIndex}_${position}`;
}

/** The events of one streamed answer, in order; records the reasoning and function-call items it issues. */
export function planOpenAIResponses(
  response: ScriptedResponse,
  ctx: PlanContext,
  issued: IssuedResponsesItems = newIssuedResponsesItems(),
): PlannedFrame[] {
  const size = response.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const usage = scriptedUsage(response, ctx.promptChars);
  const frames: PlannedFrame[] = [];
  let sequence = 0;
  const push = (type: string, data: Record<string, unknown>, delta = false, extra: Partial<PlannedFrame> = {}) =>
    frames.push({ text: namedEvent(type, { type, sequence_number: sequence++, ...data }), delta, ...extra });
  const responseId = `resp_loopback_${ctx.requestIndex}`;
  const envelope = (status: string, output: unknown[], usageObject: unknown) => ({
    id: responseId,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: ctx.model,
    output,
    store: false,
    usage: usageObject,
  });
  push("response.created", { response: envelope("in_progress", [], null) });
  push("response.in_progress", { response: envelope("in_progress", [], null) });

  const output: Record<string, unknown>[] = [];
  let reasoningId: string | undefined;
  if (response.thinking) {
    const id = `rs_loopback_${ctx.requestIndex}`;
    reasoningId = id;
    const outputIndex = output.length;
    push("response.output_item.added", { output_index: outputIndex, item: { id, type: "reasoning", summary: [] } });
    const raw = response.reasoningField === "reasoning_text" && !response.thinkingRedacted;
    const summary = response.thinkingRedacted || raw ? [] : [{ type: "summary_text", text: response.thinking }];
    if (raw) {
      // Raw reasoning content (open-weight models such as gpt-oss): `response.reasoning_text.*`, no summary.
      const at = { item_id: id, output_index: outputIndex, content_index: 0 };
      for (const slice of splitText(response.thinking, size)) {
        push("response.reasoning_text.delta", { ...at, delta: slice }, true);
      }
      push("response.reasoning_text.done", { ...at, text: response.thinking });
    } else if (!response.thinkingRedacted) {
      const at = { item_id: id, output_index: outputIndex, summary_index: 0 };
      push("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } });
      for (const slice of splitText(response.thinking, size)) {
        push("response.reasoning_summary_text.delta", { ...at, delta: slice }, true);
      }
      push("response.reasoning_summary_text.done", { ...at, text: response.thinking });
      push("response.reasoning_summary_part.done", { ...at, part: { type: "summary_text", text: response.thinking } });
    }
    const encrypted = response.thinkingSignature ?? `gAAAAB${signText(`${id}\n${response.thinking}`)}`;
    const item = {
      id,
      type: "reasoning",
      summary,
      ...(raw ? { content: [{ type: "reasoning_text", text: response.thinking }] } : {}),
      encrypted_content: encrypted,
    };
    output.push(item);
    issued.reasoning.set(id, encrypted);
    push("response.output_item.done", { output_index: outputIndex, item });
  }
  if (response.text) {
    const id = `msg_loopback_${ctx.requestIndex}`;
    const outputIndex = output.length;
    push("response.output_item.added", {
      output_index: outputIndex,
      item: { id, type: "message", status: "in_progress", role: "assistant", content: [] },
    });
    const at = { item_id: id, output_index: outputIndex, content_index: 0 };
    push("response.content_part.added", { ...at, part: { type: "output_text", text: "", annotations: [] } });
    for (const slice of splitText(response.text, size)) {
      push("response.output_text.delta", { ...at, delta: slice, logprobs: [] }, true);
    }
    push("response.output_text.done", { ...at, text: response.text, logprobs: [] });
    const part = { type: "output_text", text: response.text, annotations: [] };
    push("response.content_part.done", { ...at, part });
    const item = { id, type: "message", status: "completed", role: "assistant", content: [part] };
    output.push(item);
    push("response.output_item.done", { output_index: outputIndex, item });
  }
  (response.toolCalls ?? []).forEach((call, position) => {
    const id = `fc_loopback_${ctx.requestIndex}_${position}`;
    const callId = responsesCallId(response, ctx.requestIndex, position);
    const args = argumentsText(call.arguments);
    const outputIndex = output.length;
    push("response.output_item.added", {
      output_index: outputIndex,
      item: { id, type: "function_call", status: "in_progress", arguments: "", call_id: callId, name: call.name },
    });
    for (const slice of splitText(args, size)) {
      push("response.function_call_arguments.delta", { item_id: id, output_index: outputIndex, delta: slice }, true);
    }
    push("response.function_call_arguments.done", { item_id: id, output_index: outputIndex, arguments: args });
    const item = { id, type: "function_call", status: "completed", arguments: args, call_id: callId, name: call.name };
    output.push(item);
    if (reasoningId) issued.functionCallReasoning.set(id, reasoningId);
    push("response.output_item.done", { output_index: outputIndex, item });
  });
  const finish = response.finishReason ?? "stop";
  const inputTokens = usage.prompt_tokens + usage.cache_read_tokens;
  const usageObject = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: usage.cache_read_tokens },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: response.thinking ? Math.ceil(response.thinking.length / 4) : 0 },
    total_tokens: inputTokens + usage.completion_tokens,
  };
  const status = finish === "length" ? "incomplete" : "completed";
  push(
    status === "completed" ? "response.completed" : "response.incomplete",
    {
      response: {
        ...envelope(status, output, usageObject),
        ...(status === "incomplete" ? { incomplete_details: { reason: "max_output_tokens" } } : {}),
      },
    },
    false,
    {
      usage: {
        input: usage.prompt_tokens,
        output: usage.completion_tokens,
        cacheRead: usage.cache_read_tokens,
        cacheWrite: 0,
      },
    },
  );
  return frames;
}

type Item = ChatMessage & { type?: string; id?: string; call_id?: string; encrypted_content?: unknown };

/**
 * Why the Responses API (with `store: false`) would refuse `body`, in its own words, or undefined: empty
 * input or content, a reasoning item it did not issue or whose `encrypted_content` changed, a reasoning
 * item without its following item, a function_call without the reasoning item it was produced with,
 * a function_call_output without its function_call, a function_call without its output.
 */
export function validateOpenAIResponsesRequest(
  body: Record<string, unknown>,
  issued: IssuedResponsesItems,
): StrictError | undefined {
  const refuse = (message: string): StrictError => ({ status: 400, message });
  const input = body["input"];
  if (Array.isArray(input) && input.length === 0) {
    return refuse(
      "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.",
    );
  }
  const items = (Array.isArray(input) ? input : []) as Item[];
  const seenReasoning = new Set<string>();
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const [i, item] of items.entries()) {
    const type = item.type ?? "message";
    if (type === "message" && Array.isArray(item.content) && item.content.length === 0) {
      return refuse(
        `Invalid 'input[${i}].content': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
      );
    }
    if (type === "reasoning") {
      const id = String(item.id);
      const expected = issued.reasoning.get(id);
      if (expected === undefined || typeof item.encrypted_content !== "string") {
        return refuse(
          `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
        );
      }
      if (item.encrypted_content !== expected)
        return refuse(`The encrypted content for item ${id} could not be verified.`);
      const next = items[i + 1];
      if (!next || next.type === "reasoning" || ((next.type ?? "message") === "message" && next.role !== "assistant")) {
        return refuse(`Item '${id}' of type 'reasoning' was provided without its required following item.`);
      }
      seenReasoning.add(id);
    }
    if (type === "function_call") {
      const required = issued.functionCallReasoning.get(String(item.id));
      if (required && !seenReasoning.has(required)) {
        return refuse(
          `Item '${item.id}' of type 'function_call' was provided without its required 'reasoning' item: '${required}'.`,
        );
      }
      calls.add(String(item.call_id));
    }
    if (type === "function_call_output") {
      const callId = String(item.call_id);
      if (!calls.has(callId)) return refuse(`No tool call found for function call output with call_id ${callId}.`);
      answered.add(callId);
    }
  }
  for (const callId of calls) {
    if (!answered.has(callId)) return refuse(`No tool output found for function call ${callId}.`);
  }
  return undefined;
}

/** The Responses adapter; remembers the items it issued, as the real API's encryption binds them. */
export function openAIResponsesAdapter(): WireAdapter {
  const issued = newIssuedResponsesItems();
  return {
    format: "openai-responses",
    basePath: "/v1",
    matches: (path) => path === "/v1/responses",
    messagesOf: (body) => (Array.isArray(body["input"]) ? (body["input"] as ChatMessage[]) : []),
    modelOf: (body) => (typeof body["model"] === "string" ? body["model"] : undefined),
    validate: (body) => validateOpenAIResponsesRequest(body, issued),
    plan: (response, ctx) => planOpenAIResponses(response, ctx, issued),
    streamError: (message, ctx) => ({
      text: namedEvent("response.failed", {
        type: "response.failed",
        response: {
          id: `resp_loopback_${ctx.requestIndex}`,
          object: "response",
          status: "failed",
          model: ctx.model,
          output: [],
          error: { code: "server_error", message },
          usage: null,
        },
      }),
      delta: false,
    }),
    errorBody: (status, message) => ({
      error: {
        message,
        type: status === 400 ? "invalid_request_error" : status === 429 ? "rate_limit_exceeded" : "server_error",
        param: status === 400 ? "input" : null,
        code: null,
      },
    }),
  };
}
