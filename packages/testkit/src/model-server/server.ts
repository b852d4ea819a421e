/**
 * A loopback OpenAI-compatible chat-completions server that streams scripted answers over SSE.
 * It lets tests drive pi's real openai-completions provider (in-process or the real CLI) with
 * no network, and see exactly what pi sent and how much of each answer it read.
 */
import { chatCompletionsAdapter } from "./chat-completions.ts";
import { SCRIPT_EXHAUSTED_TEXT, startWireServer } from "./http-server.ts";
import type { ModelServer, ModelServerOptions } from "./types.ts";

export { SCRIPT_EXHAUSTED_TEXT };

const DEFAULT_MODEL_ID = "loopback-model";

/** Start a chat-completions server on 127.0.0.1 (port 0 by default). Close it with `server.close()`. */
export function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const modelId = options.modelId ?? DEFAULT_MODEL_ID;
  return startWireServer(chatCompletionsAdapter(), { ...options, modelId }, (path) =>
    path === "/v1/models" || path === "/models"
      ? { object: "list", data: [{ id: modelId, object: "model", created: 0, owned_by: "testkit" }] }
      : undefined,
  );
}
