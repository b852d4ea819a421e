/**
 * Anthropic Messages (`POST /v1/messages`, named SSE events): the planner, the strict validator and the
 * adapter for the shared server. Faithful to the public streaming docs: `message_start` (with input and
 * cache usage, so an aborted attempt is billed), `content_block_start/delta/stop` for thinking
 * (`thinking_delta`, then `signature_delta` at block end), text and tool_use (`input_json_delta`),
 * `ping`, `message_delta` (stop reason, final usage), `message_stop`.
 */
import { DEFAULT_CHUNK_SIZE, splitText } from "./chunks.ts";
import { sealText, signText, verifySealed, verifyText } from "./signatures.ts";
import type { ChatMessage, ReportedUsage, ScriptedResponse } from "./types.ts";
import { argumentsText, scriptedUsage } from "./usage.ts";
import type { PlanContext, PlannedFrame, StrictError, WireAdapter } from "./wire.ts";
import { namedEvent } from "./wire.ts";

/** Default tool_use id of a scripted call (Anthropic's look: `toolu_…`). */
export function anthropicToolUseId(response: ScriptedResponse, requestIndex: number, position: number): string {
  return response.toolCalls?.[position]?.id ?? `toolu_loopback_${requestIndex}_${position}`;
}

function stopReasonOf(response: ScriptedResponse): string {
  const finish = response.finishReason ?? (response.toolCalls?.length ? "tool_calls" : "stop");
  return finish === "tool_calls" ? "tool_use" : finish === "length" ? "max_tokens" : "end_turn";
}

/** The events of one streamed answer, in order. */
export function planAnthropicMessages(response: ScriptedResponse, ctx: PlanContext): PlannedFrame[] {
  const size = response.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const usage = scriptedUsage(response, ctx.promptChars);
  const inputUsage = {
    input_tokens: usage.prompt_tokens,
    cache_creation_input_tokens: usage.cache_write_tokens,
    cache_read_input_tokens: usage.cache_read_tokens,
  };
  const startUsage: ReportedUsage = {
    input: usage.prompt_tokens,
    output: 1,
    cacheRead: usage.cache_read_tokens,
    cacheWrite: usage.cache_write_tokens,
  };
  const frames: PlannedFrame[] = [];
  const push = (name: string, data: Record<string, unknown>, delta = false, reported?: ReportedUsage) =>
    frames.push({ text: namedEvent(name, { type: name, ...data }), delta, ...(reported ? { usage: reported } : {}) });

  push(
    "message_start",
    {
      message: {
        id: `msg_loopback_${ctx.requestIndex}`,
        type: "message",
        role: "assistant",
        model: ctx.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...inputUsage, output_tokens: 1 },
      },
    },
    false,
    startUsage,
  );
  push("ping", {});

  let index = 0;
  if (response.thinking && response.thinkingRedacted) {
    const data = response.thinkingSignature ?? sealText(response.thinking);
    push("content_block_start", { index, content_block: { type: "redacted_thinking", data } });
    push("content_block_stop", { index });
    index++;
  } else if (response.thinking) {
    push("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
    for (const slice of splitText(response.thinking, size)) {
      push("content_block_delta", { index, delta: { type: "thinking_delta", thinking: slice } }, true);
    }
    const signature = response.thinkingSignature ?? signText(response.thinking);
    push("content_block_delta", { index, delta: { type: "signature_delta", signature } });
    push("content_block_stop", { index });
    index++;
  }
  if (response.text) {
    push("content_block_start", { index, content_block: { type: "text", text: "" } });
    for (const slice of splitText(response.text, size)) {
      push("content_block_delta", { index, delta: { type: "text_delta", text: slice } }, true);
    }
    push("content_block_stop", { index });
    index++;
  }
  (response.toolCalls ?? []).forEach((call, position) => {
    push("content_block_start", {
      index,
      content_block: {
        type: "tool_use",
        id: anthropicToolUseId(response, ctx.requestIndex, position),
        name: call.name,
        input: {},
      },
    });
    for (const slice of splitText(argumentsText(call.arguments), size)) {
      push("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: slice } }, true);
    }
    push("content_block_stop", { index });
    index++;
  });
  push(
    "message_delta",
    {
      delta: { stop_reason: stopReasonOf(response), stop_sequence: null },
      usage: { ...inputUsage, output_tokens: usage.completion_tokens },
    },
    false,
    { ...startUsage, output: usage.completion_tokens },
  );
  push("message_stop", {});
  return frames;
}

type Block = {
  type?: string;
  text?: string;
  thinking?: string;
  data?: unknown;
  signature?: unknown;
  id?: string;
  tool_use_id?: string;
};

const blocksOf = (message: ChatMessage): Block[] =>
  typeof message.content === "string"
    ? [{ type: "text", text: message.content }]
    : ((message.content ?? []) as Block[]);

/**
 * Why the Messages API would refuse `body`, in its own words, or undefined: no messages, empty content,
 * empty text blocks, a thinking block without a valid signature (unsigned, or changed since it was
 * signed), thinking not first or last in an assistant message, `tool_use` without `tool_result` in the next
 * message, `tool_result` without `tool_use` before, and (thinking enabled) a continued tool turn that does
 * not start with its thinking block.
 */
export function validateAnthropicMessagesRequest(body: Record<string, unknown>): StrictError | undefined {
  const messages = Array.isArray(body["messages"]) ? (body["messages"] as ChatMessage[]) : [];
  const refuse = (message: string): StrictError => ({ status: 400, message });
  if (messages.length === 0) return refuse("messages: at least one message is required");
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as ChatMessage;
    const blocks = blocksOf(message);
    const isFinalAssistant = i === messages.length - 1 && message.role === "assistant";
    const empty = typeof message.content === "string" ? message.content.length === 0 : blocks.length === 0;
    if (empty && !isFinalAssistant) {
      return refuse(
        `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    for (const [j, block] of blocks.entries()) {
      if (block.type === "text" && typeof message.content !== "string") {
        if (!block.text) return refuse("messages: text content blocks must be non-empty");
        if (block.text.trim() === "") return refuse("messages: text content blocks must contain non-whitespace text");
      }
      if (block.type === "thinking") {
        if (typeof block.signature !== "string" || block.signature === "") {
          return refuse(`messages.${i}.content.${j}.thinking.signature: Field required`);
        }
        if (!verifyText(block.thinking ?? "", block.signature)) {
          return refuse(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
        }
      }
      if (block.type === "redacted_thinking" && !verifySealed(block.data)) {
        return refuse(`messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block`);
      }
      if (block.type === "tool_result") {
        const previous = i > 0 ? blocksOf(messages[i - 1] as ChatMessage) : [];
        const known = previous.filter((b) => b.type === "tool_use").map((b) => b.id);
        if (!known.includes(block.tool_use_id)) {
          return refuse(
            `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
        }
      }
    }
    if (message.role === "assistant") {
      const firstThinking = blocks.findIndex((b) => b.type === "thinking" || b.type === "redacted_thinking");
      if (firstThinking > 0) {
        return refuse(
          `messages.${i}.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found ${blocks[0]?.type}.`,
        );
      }
      const lastType = blocks.at(-1)?.type;
      if (lastType === "thinking" || lastType === "redacted_thinking") {
        return refuse(`messages.${i}: The final block in an assistant message cannot be \`thinking\`.`);
      }
    }
    const toolUses = blocks.filter((b) => b.type === "tool_use").map((b) => String(b.id));
    if (toolUses.length > 0) {
      const next = messages[i + 1];
      const answered = next
        ? blocksOf(next)
            .filter((b) => b.type === "tool_result")
            .map((b) => b.tool_use_id)
        : [];
      const missing = toolUses.filter((id) => !answered.includes(id));
      if (missing.length > 0) {
        return refuse(
          `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
    }
  }
  return thinkingFirstInToolLoop(body, messages);
}

/**
 * With thinking enabled, the assistant message before the last set of tool results (the turn being
 * continued) must start with its thinking block: a turn whose thinking was dropped or turned into text
 * is refused.
 */
function thinkingFirstInToolLoop(body: Record<string, unknown>, messages: ChatMessage[]): StrictError | undefined {
  if ((body["thinking"] as { type?: string } | undefined)?.type !== "enabled") return undefined;
  const last = messages.length - 1;
  const lastMessage = messages[last];
  if (lastMessage?.role !== "user" || !blocksOf(lastMessage).some((b) => b.type === "tool_result")) {
    return undefined;
  }
  const assistant = messages[last - 1];
  if (assistant?.role !== "assistant") return undefined;
  const first = blocksOf(assistant)[0]?.type;
  if (first === "thinking" || first === "redacted_thinking") return undefined;
  return {
    status: 400,
    message: `messages.${last - 1}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
  };
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

/** The Anthropic Messages adapter (stateless: signatures verify by themselves). */
export function anthropicMessagesAdapter(): WireAdapter {
  return {
    format: "anthropic-messages",
    basePath: "",
    matches: (path) => path === "/v1/messages",
    messagesOf: (body) => (Array.isArray(body["messages"]) ? (body["messages"] as ChatMessage[]) : []),
    modelOf: (body) => (typeof body["model"] === "string" ? body["model"] : undefined),
    validate: validateAnthropicMessagesRequest,
    plan: planAnthropicMessages,
    streamError: (message) => ({
      text: namedEvent("error", { type: "error", error: { type: "overloaded_error", message } }),
      delta: false,
    }),
    errorBody: (status, message) => ({
      type: "error",
      error: { type: ERROR_TYPES[status] ?? "api_error", message },
      request_id: "req_loopback",
    }),
  };
}
