/**
 * Registers the loopback provider in an agent dir's models.json, which is how the real `pi` CLI
 * (and ModelRegistry in-process) learns about a custom OpenAI-compatible endpoint.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LOOPBACK_API_KEY, LOOPBACK_COMPAT, LOOPBACK_MODEL_ID, LOOPBACK_PROVIDER } from "./loopback-model.ts";
import type { ModelServer } from "./types.ts";

/** The models.json provider entry for `server` (format: pi docs/models.md). */
export function loopbackProviderConfig(server: Pick<ModelServer, "baseUrl">) {
  return {
    baseUrl: server.baseUrl,
    api: "openai-completions",
    apiKey: LOOPBACK_API_KEY,
    compat: { ...LOOPBACK_COMPAT },
    models: [
      {
        id: LOOPBACK_MODEL_ID,
        name: "Loopback Model",
        reasoning: false,
        input: ["text"],
        contextWindow: 128_000,
        maxTokens: 4096,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      },
    ],
  };
}

/**
 * Write (or update) `<agentDir>/models.json` so provider `loopback`, model `loopback-model`
 * points at `server`. Other providers already in the file are kept. Returns the file path.
 */
export function writeModelsJson(agentDir: string, server: Pick<ModelServer, "baseUrl">): string {
  const path = join(agentDir, "models.json");
  let config: { providers?: Record<string, unknown> } = {};
  if (existsSync(path)) config = JSON.parse(readFileSync(path, "utf8")) as typeof config;
  config.providers = { ...config.providers, [LOOPBACK_PROVIDER]: loopbackProviderConfig(server) };
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  return path;
}
