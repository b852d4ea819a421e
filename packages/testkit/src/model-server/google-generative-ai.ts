/**
 * Gemini `streamGenerateContent?alt=sse` (`POST /v1beta/models/<model>:streamGenerateContent`, `data:`
 * chunks): the planner, the strict validator and the adapter for the shared server. Faithful to the
 * public docs: thought-summary parts (`thought: true`), text parts, whole `functionCall` parts (Gemini
 * does not stream arguments), a `thoughtSignature` on the first function call (or the last text part),
 * `usageMetadata` with every chunk (prompt and cached tokens at once, output counts with the last chunk),
 * `finishReason` on the last chunk.
 */
import { DEFAULT_CHUNK_SIZE, splitText } from "./chunks.ts";
import { signText } from "./signatures.ts";
import type { ChatMessage, ReportedUsage, ScriptedResponse } from "./types.ts";
import { scriptedUsage } from "./usage.ts";
import type { PlanContext, PlannedFrame, StrictError, WireAdapter } from "./wire.ts";

/** Thought signatures the server handed out (Gemini binds them to its own session state). */
export type IssuedThoughtSignatures = Set<string>;

type Part = {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { name: string; args: unknown; id?: string };
  functionResponse?: unknown;
};

/** Gemini SSE framing (`data: …` and a CRLF blank line, as the API sends it). */
const frame = (data: unknown) => `data: ${JSON.stringify(data)}\r\n\r\n`;

/** The chunks of one streamed answer, in order; records the thought signature it issues. */
export function planGoogleGenerativeAI(
  response: ScriptedResponse,
  ctx: PlanContext,
  issued: IssuedThoughtSignatures = new Set(),
): PlannedFrame[] {
  const size = response.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const usage = scriptedUsage(response, ctx.promptChars);
  const promptTokenCount = usage.prompt_tokens + usage.cache_read_tokens;
  const cached = usage.cache_read_tokens ? { cachedContentTokenCount: usage.cache_read_tokens } : {};
  const promptUsage = { promptTokenCount, ...cached, totalTokenCount: promptTokenCount };
  const promptReported: ReportedUsage = {
    input: usage.prompt_tokens,
    output: 0,
    cacheRead: usage.cache_read_tokens,
    cacheWrite: 0,
  };
  const responseId = `loopback-${ctx.requestIndex}`;
  const signature = response.thinking
    ? (response.thinkingSignature ?? signText(`${ctx.requestIndex}\n${response.thinking}`))
    : undefined;
  if (signature) issued.add(signature);

  const chunk = (parts: Part[], extra: Record<string, unknown> = {}, usageMetadata: unknown = promptUsage) => ({
    candidates: [{ content: { parts, role: "model" }, index: 0, ...extra }],
    usageMetadata,
    modelVersion: ctx.model,
    responseId,
  });
  const frames: PlannedFrame[] = [];
  for (const slice of splitText(response.thinkingRedacted ? "" : (response.thinking ?? ""), size)) {
    frames.push({ text: frame(chunk([{ text: slice, thought: true }])), delta: true, usage: promptReported });
  }
  const textSlices = splitText(response.text ?? "", size);
  const calls = response.toolCalls ?? [];
  textSlices.forEach((slice, i) => {
    const last = i === textSlices.length - 1 && calls.length === 0;
    const part: Part = { text: slice, ...(last && signature ? { thoughtSignature: signature } : {}) };
    frames.push({ text: frame(chunk([part])), delta: true, usage: promptReported });
  });
  calls.forEach((call, position) => {
    const args = typeof call.arguments === "string" ? parseArguments(call.name, call.arguments) : call.arguments;
    const part: Part = {
      functionCall: { name: call.name, args },
      ...(position === 0 && signature ? { thoughtSignature: signature } : {}),
    };
    frames.push({ text: frame(chunk([part])), delta: true, usage: promptReported });
  });
  const thoughts = response.thinking ? Math.min(usage.completion_tokens, Math.ceil(response.thinking.length / 4)) : 0;
  const finalUsage = {
    promptTokenCount,
    candidatesTokenCount: usage.completion_tokens - thoughts,
    ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
    ...cached,
    totalTokenCount: promptTokenCount + usage.completion_tokens,
  };
  const finishReason = response.finishReason === "length" ? "MAX_TOKENS" : "STOP";
  // The last chunk: an empty text part carries the signature when no text or call did.
  const tailParts: Part[] =
    signature && textSlices.length === 0 && calls.length === 0
      ? [{ text: "", thoughtSignature: signature }]
      : [{ text: "" }];
  frames.push({
    text: frame(chunk(tailParts, { finishReason }, finalUsage)),
    delta: false,
    usage: { ...promptReported, output: usage.completion_tokens },
  });
  return frames;
}

/** Gemini sends whole argument objects: a scripted string must be JSON. */
function parseArguments(name: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(
      `google-generative-ai: tool call ${name}: arguments must be JSON (Gemini sends objects): ${String(error)}`,
    );
  }
}

const GEMINI_3 = /^gemini-3/;

/**
 * Why the Gemini API would refuse `body`, in its own words, or undefined: no contents, a content without
 * parts, a thought signature it never issued or that was changed, a function response turn not right
 * after a function call turn or with another number of parts, and (Gemini 3) a function call of the
 * current turn without its `thoughtSignature`.
 */
export function validateGoogleGenerativeAIRequest(
  body: Record<string, unknown>,
  issued: IssuedThoughtSignatures,
  model = "",
): StrictError | undefined {
  const refuse = (message: string): StrictError => ({ status: 400, message });
  const contents = (Array.isArray(body["contents"]) ? body["contents"] : []) as ChatMessage[];
  if (contents.length === 0) return refuse("* GenerateContentRequest.contents: contents is not specified\n");
  for (const [i, content] of contents.entries()) {
    const parts = (Array.isArray(content["parts"]) ? content["parts"] : []) as Part[];
    if (parts.length === 0)
      return refuse(`* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`);
    for (const part of parts) {
      if (part.thoughtSignature !== undefined && !issued.has(part.thoughtSignature))
        return refuse("Corrupted thought signature.");
    }
    const responses = parts.filter((p) => p.functionResponse).length;
    if (responses > 0) {
      const previous = (contents[i - 1]?.["parts"] ?? []) as Part[];
      const callCount = previous.filter((p) => p.functionCall).length;
      if (contents[i - 1]?.role !== "model" || callCount === 0) {
        return refuse("Please ensure that function response turn comes immediately after a function call turn.");
      }
      if (callCount !== responses) {
        return refuse(
          "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
        );
      }
    }
  }
  if (GEMINI_3.test(model)) {
    let lastUser = contents.length - 1;
    while (
      lastUser >= 0 &&
      (contents[lastUser]?.role !== "user" ||
        ((contents[lastUser]?.["parts"] ?? []) as Part[]).some((p) => p.functionResponse))
    )
      lastUser--;
    for (let i = lastUser + 1; i < contents.length; i++) {
      const parts = (contents[i]?.["parts"] ?? []) as Part[];
      const first = parts.findIndex((p) => p.functionCall);
      if (contents[i]?.role === "model" && first >= 0 && !parts[first]?.thoughtSignature) {
        return refuse(
          `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${parts[first]?.functionCall?.name}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
        );
      }
    }
  }
  return undefined;
}

const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  503: "UNAVAILABLE",
};

const ROUTE = /^\/v1beta\/models\/([^/:]+):streamGenerateContent$/;

/** The Gemini adapter; remembers the thought signatures it issued. */
export function googleGenerativeAIAdapter(): WireAdapter {
  const issued: IssuedThoughtSignatures = new Set();
  return {
    format: "google-generative-ai",
    basePath: "/v1beta",
    matches: (path) => ROUTE.test(path),
    messagesOf: (body) => (Array.isArray(body["contents"]) ? (body["contents"] as ChatMessage[]) : []),
    modelOf: (_body, path) => ROUTE.exec(path)?.[1],
    validate: (body, model) => validateGoogleGenerativeAIRequest(body, issued, model),
    plan: (response, ctx) => planGoogleGenerativeAI(response, ctx, issued),
    // Gemini ends a failing stream with a bare JSON error object, which its SDK reads from a read of its own.
    streamError: (message) => ({
      text: JSON.stringify({ error: { code: 503, message, status: "UNAVAILABLE" } }),
      delta: false,
      apart: true,
    }),
    errorBody: (status, message) => ({ error: { code: status, message, status: STATUS[status] ?? "INTERNAL" } }),
  };
}
