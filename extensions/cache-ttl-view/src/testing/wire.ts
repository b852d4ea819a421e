import { type Context, type Model, normalizeContext, type SimpleStreamOptions } from "@earendil-works/pi-ai";
import { streamSimple as anthropicMessages } from "@earendil-works/pi-ai/api/anthropic-messages";
import { streamSimple as googleGenerativeAI } from "@earendil-works/pi-ai/api/google-generative-ai";
import { streamSimple as openAICompletions } from "@earendil-works/pi-ai/api/openai-completions";
import { streamSimple as openAIResponses } from "@earendil-works/pi-ai/api/openai-responses";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { convertToLlm } from "@earendil-works/pi-coding-agent";
import type { AssistantMsg, ViewMessage } from "../model/messages.ts";

/**
 * The request body pi-ai's real provider code builds for a message list, per wire format, and pure checks of such a
 * body against the rules each public API enforces (what it answers 400 for). Test-only: nothing here is sent
 * anywhere; `onPayload` captures the body and stops the request before any connection is made.
 */

export type WireApi = "anthropic-messages" | "openai-responses" | "google-generative-ai" | "openai-completions";

/** A real catalogue model per wire format (reasoning models, so thinking is on the wire). */
export function wireModel(api: WireApi): Model<string> {
  switch (api) {
    case "anthropic-messages":
      return getBuiltinModel("anthropic", "claude-sonnet-4-5") as Model<string>;
    case "openai-responses":
      return getBuiltinModel("openai", "gpt-5") as Model<string>;
    case "google-generative-ai":
      return getBuiltinModel("google", "gemini-2.5-pro") as Model<string>;
    case "openai-completions":
      return getBuiltinModel("deepseek", "deepseek-v4-pro") as Model<string>;
  }
}

/** pi-ai 1.6's client of each wire format (its `./api/<api>` module), as pi's model runtime calls it. */
const CLIENTS: Record<WireApi, (model: never, context: never, options: SimpleStreamOptions) => AsyncIterable<unknown>> =
  {
    "anthropic-messages": anthropicMessages as never,
    "openai-responses": openAIResponses as never,
    "google-generative-ai": googleGenerativeAI as never,
    "openai-completions": openAICompletions as never,
  };

const TOOLS = ["read", "bash", "grep", "write", "edit", "web_search"].map((name) => ({
  name,
  description: name,
  parameters: { type: "object", properties: {} } as never,
}));

/**
 * The body pi-ai would send for `messages` to `model` (thinking on), captured before any request is made. The
 * messages go through pi's own `convertToLlm` first (custom messages become user messages), as pi sends them.
 */
export async function wirePayload(model: Model<string>, messages: readonly ViewMessage[]): Promise<unknown> {
  let captured: unknown;
  const llm = convertToLlm(messages as never);
  const context = { systemPrompt: "You are a coding agent.", messages: llm, tools: TOOLS } as unknown as Context;
  const client = CLIENTS[model.api as WireApi];
  const stream = client(
    model as never,
    normalizeContext(context) as never,
    {
      apiKey: "test-key",
      reasoning: "medium",
      maxRetries: 0,
      onPayload: (payload: unknown) => {
        captured = structuredClone(payload);
        throw new Error("payload captured");
      },
    } as never,
  );
  for await (const _event of stream) {
    // drained: the stream ends with the error thrown above
  }
  if (captured === undefined) throw new Error(`no payload captured for ${model.api}`);
  return captured;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v.filter(isObj) as Json[]) : []);

/** Items a provider signed or issued (thinking, reasoning, signed calls): never to be edited, only dropped whole. */
export function signedItems(api: WireApi, payload: unknown): string[] {
  const out: string[] = [];
  const p = payload as Json;
  if (api === "anthropic-messages") {
    for (const m of arr(p["messages"]))
      for (const b of arr(m["content"])) {
        if (b["type"] === "thinking" || b["type"] === "redacted_thinking") out.push(JSON.stringify(b));
      }
  } else if (api === "openai-responses") {
    for (const item of arr(p["input"])) if (item["type"] === "reasoning") out.push(JSON.stringify(item));
  } else if (api === "google-generative-ai") {
    for (const c of arr(p["contents"]))
      for (const part of arr(c["parts"])) {
        if (part["thoughtSignature"] !== undefined) out.push(JSON.stringify(part));
      }
  } else {
    for (const m of arr(p["messages"])) if (m["reasoning_details"] !== undefined) out.push(JSON.stringify(m));
  }
  return out;
}

/** OpenAI Responses: which reasoning item each `fc_…` function call came with (from a body as first sent). */
export function responsesLinks(payload: unknown): Map<string, string> {
  const links = new Map<string, string>();
  let reasoning: string | undefined;
  for (const item of arr((payload as Json)["input"])) {
    if (item["type"] === "reasoning") reasoning = String(item["id"]);
    else if (item["type"] === "function_call" && typeof item["id"] === "string" && reasoning) {
      links.set(item["id"], reasoning);
    } else if (item["type"] !== "message" || item["role"] !== "assistant") reasoning = undefined;
  }
  return links;
}

export interface WireRules {
  /** Signed items as first sent (`signedItems` of the unpruned body): the pruned body may only repeat them. */
  signed?: readonly string[];
  /** OpenAI Responses: fc id -> reasoning id, from the unpruned body. */
  links?: ReadonlyMap<string, string>;
}

function anthropicProblems(p: Json, rules: WireRules): string[] {
  const problems: string[] = [];
  const messages = arr(p["messages"]);
  const thinkingOn = isObj(p["thinking"]) && p["thinking"]["type"] !== "disabled";
  messages.forEach((m, i) => {
    const content = m["content"];
    if (typeof content === "string") {
      if (content.trim() === "") problems.push(`messages[${i}]: empty text`);
      return;
    }
    const blocks = arr(content);
    if (blocks.length === 0) problems.push(`messages[${i}]: empty content`);
    for (const b of blocks) {
      if (b["type"] === "text" && String(b["text"]).trim() === "") problems.push(`messages[${i}]: empty text block`);
      if ((b["type"] === "thinking" || b["type"] === "redacted_thinking") && rules.signed) {
        if (!rules.signed.includes(JSON.stringify(b))) problems.push(`messages[${i}]: modified ${b["type"]} block`);
      }
    }
    if (m["role"] === "assistant") {
      const uses = blocks.filter((b) => b["type"] === "tool_use").map((b) => String(b["id"]));
      const next = messages[i + 1];
      const answered = new Set(
        arr(next?.["content"])
          .filter((b) => b["type"] === "tool_result")
          .map((b) => String(b["tool_use_id"])),
      );
      for (const id of uses) if (!answered.has(id)) problems.push(`tool_use ${id} without tool_result after it`);
    } else {
      const prev = messages[i - 1];
      const uses = new Set(
        arr(prev?.["content"])
          .filter((b) => b["type"] === "tool_use")
          .map((b) => String(b["id"])),
      );
      for (const b of blocks) {
        if (b["type"] === "tool_result" && !uses.has(String(b["tool_use_id"]))) {
          problems.push(`tool_result ${String(b["tool_use_id"])} without tool_use before it`);
        }
      }
    }
  });
  // Inside a tool loop (the request ends with tool results), the last assistant message must open with thinking.
  const last = messages.at(-1);
  const lastAssistant = messages.at(-2);
  if (thinkingOn && last && arr(last["content"]).some((b) => b["type"] === "tool_result") && lastAssistant) {
    const first = arr(lastAssistant["content"])[0];
    if (first?.["type"] !== "thinking" && first?.["type"] !== "redacted_thinking") {
      problems.push("tool loop: the final assistant message does not start with a thinking block");
    }
  }
  return problems;
}

function responsesProblems(p: Json, rules: WireRules): string[] {
  const problems: string[] = [];
  const input = arr(p["input"]);
  const present = new Set(input.filter((i) => i["type"] === "reasoning").map((i) => String(i["id"])));
  const calls = new Map<string, number>();
  input.forEach((item, k) => {
    const type = item["type"];
    if (type === "reasoning") {
      if (rules.signed && !rules.signed.includes(JSON.stringify(item)))
        problems.push(`input[${k}]: modified reasoning`);
      const next = input[k + 1];
      if (!next || (next["type"] !== "function_call" && next["type"] !== "message" && next["type"] !== "reasoning")) {
        problems.push(`reasoning ${String(item["id"])} provided without its required following item`);
      }
    } else if (type === "function_call") {
      const id = item["id"];
      if (typeof id === "string") {
        const needs = rules.links?.get(id);
        if (needs && !present.has(needs)) {
          problems.push(`function_call ${id} provided without its required reasoning item ${needs}`);
        }
      }
      calls.set(String(item["call_id"]), (calls.get(String(item["call_id"])) ?? 0) + 1);
    } else if (type === "function_call_output") {
      const callId = String(item["call_id"]);
      const open = calls.get(callId) ?? 0;
      if (open === 0) problems.push(`function_call_output ${callId} without its function_call`);
      else calls.set(callId, open - 1);
    } else if (item["role"] !== undefined) {
      const content = item["content"];
      if (typeof content === "string" ? content.trim() === "" : arr(content).length === 0) {
        problems.push(`input[${k}]: empty ${String(item["role"])} content`);
      }
      for (const c of arr(content)) {
        if ((c["type"] === "input_text" || c["type"] === "output_text") && String(c["text"]).trim() === "") {
          problems.push(`input[${k}]: empty text`);
        }
      }
    }
  });
  for (const [callId, open] of calls) if (open > 0) problems.push(`function_call ${callId} without output`);
  return problems;
}

function googleProblems(p: Json, rules: WireRules): string[] {
  const problems: string[] = [];
  const contents = arr(p["contents"]);
  contents.forEach((c, i) => {
    const parts = arr(c["parts"]);
    if (parts.length === 0) problems.push(`contents[${i}]: empty parts`);
    for (const part of parts) {
      if (typeof part["text"] === "string" && part["text"].trim() === "") problems.push(`contents[${i}]: empty text`);
      if (part["thoughtSignature"] !== undefined && rules.signed && !rules.signed.includes(JSON.stringify(part))) {
        problems.push(`contents[${i}]: a signed part was modified`);
      }
    }
    const calls = parts.filter((part) => isObj(part["functionCall"]));
    if (c["role"] === "model" && calls.length > 0) {
      const answers = arr(contents[i + 1]?.["parts"]).filter((part) => isObj(part["functionResponse"]));
      const names = (xs: Json[], key: string) =>
        xs
          .map((x) => String((x[key] as Json)["name"]))
          .sort()
          .join(",");
      if (names(calls, "functionCall") !== names(answers, "functionResponse")) {
        problems.push(`contents[${i}]: function calls not answered one to one by the next turn`);
      }
    }
  });
  return problems;
}

function completionsProblems(p: Json, rules: WireRules): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  arr(p["messages"]).forEach((m, i) => {
    const role = m["role"];
    const content = m["content"];
    const empty = content === null || content === undefined || (typeof content === "string" && content === "");
    if (role === "assistant") {
      const calls = arr(m["tool_calls"]);
      if (empty && calls.length === 0) problems.push(`messages[${i}]: assistant with neither content nor tool_calls`);
      for (const call of calls) open.add(String(call["id"]));
      if (m["reasoning_details"] !== undefined && rules.signed && !rules.signed.includes(JSON.stringify(m))) {
        problems.push(`messages[${i}]: reasoning_details sent with a modified message`);
      }
    } else if (role === "tool") {
      if (!open.delete(String(m["tool_call_id"])))
        problems.push(`tool message ${String(m["tool_call_id"])} without call`);
    } else if (role === "user" && (empty || (Array.isArray(content) && content.length === 0))) {
      problems.push(`messages[${i}]: empty user content`);
    }
  });
  for (const id of open) problems.push(`tool call ${id} without tool message`);
  return problems;
}

/** What the public API would reject in this body (an empty list: a valid request). */
export function wireProblems(api: WireApi, payload: unknown, rules: WireRules = {}): string[] {
  const p = payload as Json;
  switch (api) {
    case "anthropic-messages":
      return anthropicProblems(p, rules);
    case "openai-responses":
      return responsesProblems(p, rules);
    case "google-generative-ai":
      return googleProblems(p, rules);
    case "openai-completions":
      return completionsProblems(p, rules);
  }
}

/** Visible text of a body (what the model reads as words, not reasoning): to check reasoning never becomes text. */
export function visibleText(api: WireApi, payload: unknown): string {
  const p = payload as Json;
  const out: string[] = [];
  const push = (v: unknown) => typeof v === "string" && out.push(v);
  if (api === "anthropic-messages") {
    for (const m of arr(p["messages"])) {
      push(m["content"]);
      for (const b of arr(m["content"])) if (b["type"] === "text") push(b["text"]);
    }
  } else if (api === "openai-responses") {
    for (const item of arr(p["input"])) for (const c of arr(item["content"])) push(c["text"]);
  } else if (api === "google-generative-ai") {
    for (const c of arr(p["contents"])) for (const part of arr(c["parts"])) if (!part["thought"]) push(part["text"]);
  } else {
    for (const m of arr(p["messages"])) push(m["content"]);
  }
  return out.join("\n");
}

/**
 * An assistant turn as a model of `api` produces it: thinking with the provider's signature, optional text, and
 * tool calls with the provider's ids (OpenAI Responses: `call_…|fc_…`, linked to the reasoning item).
 */
export function providerAssistant(
  model: Model<string>,
  n: number,
  options: { thinking: string; text?: string; calls?: { name: string; args: Record<string, unknown> }[] },
  timestamp: number,
): AssistantMsg {
  const api = model.api as WireApi;
  const content: AssistantMsg["content"] = [];
  const thinking: Record<string, unknown> = { type: "thinking", thinking: options.thinking };
  if (api === "anthropic-messages") thinking["thinkingSignature"] = `EqQBsig${n}${"s".repeat(40)}`;
  else if (api === "openai-responses") {
    thinking["thinkingSignature"] = JSON.stringify({
      type: "reasoning",
      id: `rs_${n}`,
      summary: [{ type: "summary_text", text: options.thinking }],
      encrypted_content: `gAAAA${n}${"e".repeat(60)}`,
    });
  } else if (api === "google-generative-ai") thinking["thinkingSignature"] = `CiQB${n}${"g".repeat(40)}`;
  else thinking["thinkingSignature"] = "reasoning_content";
  content.push(thinking as AssistantMsg["content"][number]);
  if (options.text) {
    const part: Record<string, unknown> = { type: "text", text: options.text };
    if (api === "openai-responses") part["textSignature"] = JSON.stringify({ v: 1, id: `msg_${n}` });
    content.push(part as AssistantMsg["content"][number]);
  }
  (options.calls ?? []).forEach((call, k) => {
    const id =
      api === "openai-responses"
        ? `call_${n}_${k}|fc_${n}_${k}`
        : api === "anthropic-messages"
          ? `toolu_${n}_${k}`
          : `call_${n}_${k}`;
    const part: Record<string, unknown> = { type: "toolCall", id, name: call.name, arguments: call.args };
    if (api === "google-generative-ai") part["thoughtSignature"] = `CiQC${n}_${k}${"f".repeat(30)}`;
    content.push(part as AssistantMsg["content"][number]);
  });
  return {
    role: "assistant",
    content,
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { input: 10, output: 10, cacheRead: 0, cacheWrite: 0 },
    stopReason: (options.calls?.length ?? 0) > 0 ? "toolUse" : "stop",
    timestamp,
  };
}
