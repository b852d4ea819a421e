/**
 * pi-ai 1.6's own client of each wire format, called directly (its `./api/<api-id>` modules), for tests that hold
 * the loopback servers against the real clients without a pi session in between.
 */
import {
  type Api,
  type AssistantMessageEventStream,
  type Context,
  type Model,
  normalizeContext,
  type SimpleStreamOptions,
  type StreamFunction,
} from "@earendil-works/pi-ai";
import { streamSimple as anthropicMessages } from "@earendil-works/pi-ai/api/anthropic-messages";
import { streamSimple as googleGenerativeAI } from "@earendil-works/pi-ai/api/google-generative-ai";
import { streamSimple as openAICompletions } from "@earendil-works/pi-ai/api/openai-completions";
import { streamSimple as openAIResponses } from "@earendil-works/pi-ai/api/openai-responses";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { loopbackModel, type ModelServer, PROVIDER_TARGETS } from "../src/index.ts";

const CLIENTS: Record<string, StreamFunction<never, SimpleStreamOptions>> = {
  "anthropic-messages": anthropicMessages,
  "google-generative-ai": googleGenerativeAI,
  "openai-completions": openAICompletions,
  "openai-responses": openAIResponses,
};

/** Stream `context` through pi-ai's client of `model.api` (the key goes in `options.apiKey`). */
export function streamWithClient(model: Model<Api>, context: Context, options: SimpleStreamOptions) {
  const client = CLIENTS[model.api];
  if (!client) throw new Error(`no pi-ai client for ${model.api}`);
  return client(model as never, normalizeContext(context), options) as AssistantMessageEventStream;
}

/**
 * The model each server is tested with: chat completions' loopback model (reasoning on), or pi's catalog entry of
 * the format's real model with the server as its base URL.
 */
export function modelFor(s: ModelServer): Model<Api> {
  if (s.format === "openai-completions") return loopbackModel(s, { reasoning: true }) as Model<Api>;
  const target = PROVIDER_TARGETS[s.format];
  const base = getBuiltinModel(target.provider as "anthropic", target.modelId as "claude-sonnet-4-5") as Model<Api>;
  if (!base) throw new Error(`pi has no model ${target.provider}/${target.modelId}`);
  return { ...base, baseUrl: s.baseUrl };
}

/** The `read` tool's parameters as plain JSON Schema (pi 1.6 takes JSON Schema tools as they are). */
export const READ_PARAMETERS = {
  type: "object",
  properties: { path: { type: "string" }, limit: { type: "number" } },
  required: ["path"],
} as const;
