/**
 * One loopback server per provider wire format, and pi pointed at it the way a user points pi at a
 * proxy: the built-in provider (`anthropic`, `openai`, `google`) keeps its real models (claude-sonnet-4-5,
 * gpt-5, gemini-2.5-pro, with their prices and thinking support) and gets the server as `baseUrl` in
 * `models.json`; the key sits in `auth.json`. Chat completions keeps its custom `loopback` provider.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { anthropicMessagesAdapter } from "./anthropic-messages.ts";
import { googleGenerativeAIAdapter } from "./google-generative-ai.ts";
import { startWireServer } from "./http-server.ts";
import { LOOPBACK_MODEL_ID, LOOPBACK_PROVIDER } from "./loopback-model.ts";
import { writeModelsJson } from "./models-json.ts";
import { openAIResponsesAdapter } from "./openai-responses.ts";
import { startModelServer } from "./server.ts";
import type { ModelServer, ModelServerOptions, WireFormat } from "./types.ts";

/** Every wire format the testkit serves, chat completions first. */
export const WIRE_FORMATS: readonly WireFormat[] = [
  "openai-completions",
  "anthropic-messages",
  "openai-responses",
  "google-generative-ai",
];

/** The pi provider and real model id each format is tested with. */
export interface ProviderTarget {
  provider: string;
  modelId: string;
  /** Key written to auth.json (pi refuses a provider without one; the servers ignore it). */
  apiKey: string;
}

export const PROVIDER_TARGETS: Readonly<Record<WireFormat, ProviderTarget>> = {
  "openai-completions": { provider: LOOPBACK_PROVIDER, modelId: LOOPBACK_MODEL_ID, apiKey: "loopback-test-key" },
  "anthropic-messages": { provider: "anthropic", modelId: "claude-sonnet-4-5", apiKey: "sk-ant-api03-loopback" },
  "openai-responses": { provider: "openai", modelId: "gpt-5", apiKey: "sk-loopback" },
  "google-generative-ai": { provider: "google", modelId: "gemini-2.5-pro", apiKey: "loopback-gemini-key" },
};

/**
 * An Anthropic OAuth-shaped key (`sk-ant-oat…`): pi-ai then talks to the server as Claude Code does
 * (Bearer auth, Claude Code system prompt and tool names). Pass as `apiKey` to `writeProviderConfig`.
 */
export const ANTHROPIC_OAUTH_TEST_KEY = "sk-ant-oat01-loopback";

/** Start a loopback server speaking `format` on 127.0.0.1. Close it with `server.close()`. */
export function startProviderServer(format: WireFormat, options: ModelServerOptions = {}): Promise<ModelServer> {
  switch (format) {
    case "openai-completions":
      return startModelServer(options);
    case "anthropic-messages":
      return startWireServer(anthropicMessagesAdapter(), options);
    case "openai-responses":
      return startWireServer(openAIResponsesAdapter(), options);
    case "google-generative-ai":
      return startWireServer(googleGenerativeAIAdapter(), options);
  }
}

/** Anthropic Messages SSE at `POST /v1/messages` (pi `baseUrl`: `http://127.0.0.1:PORT`). */
export const startAnthropicServer = (options?: ModelServerOptions) =>
  startProviderServer("anthropic-messages", options);
/** OpenAI Responses SSE at `POST /v1/responses` (pi `baseUrl`: `http://127.0.0.1:PORT/v1`). */
export const startResponsesServer = (options?: ModelServerOptions) => startProviderServer("openai-responses", options);
/** Gemini `streamGenerateContent?alt=sse` (pi `baseUrl`: `http://127.0.0.1:PORT/v1beta`). */
export const startGeminiServer = (options?: ModelServerOptions) => startProviderServer("google-generative-ai", options);

/** The provider and model pi should use for `server`. */
export function providerTarget(server: Pick<ModelServer, "format">): ProviderTarget {
  return PROVIDER_TARGETS[server.format];
}

function readJson(path: string): Record<string, unknown> {
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>) : {};
}

/**
 * Point the agent dir's pi at `server`: for a built-in provider `models.json` gets
 * `providers.<provider>.baseUrl` (pi's documented proxy override) and `auth.json` an API key; for chat
 * completions the custom `loopback` provider (see `writeModelsJson`). Other entries are kept.
 */
export function writeProviderConfig(
  agentDir: string,
  server: Pick<ModelServer, "format" | "baseUrl">,
  options: { apiKey?: string } = {},
): ProviderTarget {
  const target = providerTarget(server);
  if (server.format === "openai-completions") {
    writeModelsJson(agentDir, server);
    return target;
  }
  mkdirSync(agentDir, { recursive: true });
  const modelsPath = join(agentDir, "models.json");
  const models = readJson(modelsPath) as { providers?: Record<string, unknown> };
  models.providers = { ...models.providers, [target.provider]: { baseUrl: server.baseUrl } };
  writeFileSync(modelsPath, `${JSON.stringify(models, null, 2)}\n`);
  const authPath = join(agentDir, "auth.json");
  const auth = readJson(authPath);
  auth[target.provider] = { type: "api_key", key: options.apiKey ?? target.apiKey };
  writeFileSync(authPath, `${JSON.stringify(auth, null, 2)}\n`, { mode: 0o600 });
  return target;
}
