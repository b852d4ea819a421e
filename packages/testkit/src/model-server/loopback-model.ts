/**
 * How pi is pointed at the loopback server: the pi-ai Model for in-process use, and the
 * provider/model names, key and compat flags shared with the CLI's models.json.
 */
import type { Model, OpenAICompletionsCompat } from "@earendil-works/pi-ai";
import type { ModelServer } from "./types.ts";

export const LOOPBACK_PROVIDER = "loopback";
export const LOOPBACK_MODEL_ID = "loopback-model";
/**
 * API key the loopback provider is registered with. pi refuses to call a provider without one;
 * the server ignores it. (In models.json a value naming an env var would be resolved from the env,
 * so it is deliberately not shaped like an env var name.)
 */
export const LOOPBACK_API_KEY = "loopback-test-key";

/**
 * Compat flags for a plain OpenAI-compatible server: `system` role instead of `developer`, no
 * `reasoning_effort`/`store`/`strict`, `max_tokens`, usage in streaming. Explicit so pi does not
 * guess from the URL.
 */
export const LOOPBACK_COMPAT: OpenAICompletionsCompat = {
  supportsStore: false,
  supportsDeveloperRole: false,
  supportsReasoningEffort: false,
  supportsUsageInStreaming: true,
  supportsStrictMode: false,
  maxTokensField: "max_tokens",
};

/** A pi-ai model that talks to `server` through pi's real openai-completions provider. */
export function loopbackModel(
  server: Pick<ModelServer, "baseUrl">,
  overrides: Partial<Model<"openai-completions">> = {},
): Model<"openai-completions"> {
  return {
    id: LOOPBACK_MODEL_ID,
    name: "Loopback Model",
    api: "openai-completions",
    provider: LOOPBACK_PROVIDER,
    baseUrl: server.baseUrl,
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128_000,
    maxTokens: 4096,
    compat: { ...LOOPBACK_COMPAT },
    ...overrides,
  };
}
