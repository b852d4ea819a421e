/**
 * @pi-rails/testkit: drive the real pi (SDK in-process, or the CLI) with scripted models,
 * in throwaway homes, with no network.
 */

/** Re-exported so tests script faux responses without a second import. */
export { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall } from "@earendil-works/pi-ai";
export { childEnv, OFFLINE_ENV } from "./cli/child-env.ts";
export { CLI_DEFAULT_SETTINGS, type CliHome, type CliHomeOptions, prepareCliHome } from "./cli/cli-home.ts";
export { nodeAtLeast, PI_MIN_NODE, piBinOf, resolvePiCli } from "./cli/resolve-pi.ts";
export {
  assertNodeForPi,
  isJsonMode,
  type PiJsonEvent,
  type RunPiOptions,
  type RunPiResult,
  runPi,
  splitJsonLines,
} from "./cli/run-pi.ts";
export { type InstallStockPiOptions, installStockPi, STOCK_PI_VERSION, type StockPi } from "./cli/stock-pi.ts";
export { parseJsonLines } from "./json-lines.ts";
export {
  anthropicMessagesAdapter,
  anthropicToolUseId,
  planAnthropicMessages,
  validateAnthropicMessagesRequest,
} from "./model-server/anthropic-messages.ts";
export { chatCompletionsAdapter, validateChatCompletionsRequest } from "./model-server/chat-completions.ts";
export { type ChunkContext, type PlannedChunk, planChunks, splitText } from "./model-server/chunks.ts";
export { emptyAssistantMessages } from "./model-server/empty-assistant.ts";
export {
  googleGenerativeAIAdapter,
  type IssuedThoughtSignatures,
  planGoogleGenerativeAI,
  validateGoogleGenerativeAIRequest,
} from "./model-server/google-generative-ai.ts";
export { startWireServer } from "./model-server/http-server.ts";
export {
  LOOPBACK_API_KEY,
  LOOPBACK_COMPAT,
  LOOPBACK_MODEL_ID,
  LOOPBACK_PROVIDER,
  loopbackModel,
} from "./model-server/loopback-model.ts";
export { loopbackProviderConfig, writeModelsJson } from "./model-server/models-json.ts";
export {
  type IssuedResponsesItems,
  newIssuedResponsesItems,
  openAIResponsesAdapter,
  planOpenAIResponses,
  responsesCallId,
  validateOpenAIResponsesRequest,
} from "./model-server/openai-responses.ts";
export {
  billPrompt,
  createPromptCache,
  type PromptCacheOptions,
  type PromptCacheStore,
  type PromptSegment,
  promptSegments,
} from "./model-server/prompt-cache.ts";
export {
  ANTHROPIC_OAUTH_TEST_KEY,
  PROVIDER_TARGETS,
  type ProviderTarget,
  providerTarget,
  startAnthropicServer,
  startGeminiServer,
  startProviderServer,
  startResponsesServer,
  WIRE_FORMATS,
  writeProviderConfig,
} from "./model-server/providers.ts";
export { SCRIPT_EXHAUSTED_TEXT, startModelServer } from "./model-server/server.ts";
export { signText, verifyText } from "./model-server/signatures.ts";
export type {
  ChatMessage,
  ModelServer,
  ModelServerOptions,
  ReasoningField,
  RecordedRequest,
  ReportedUsage,
  Script,
  ScriptedResponse,
  ScriptedToolCall,
  ScriptedUsage,
  ScriptFunction,
  WireFormat,
} from "./model-server/types.ts";
export type { PlanContext, PlannedFrame, StrictError, WireAdapter } from "./model-server/wire.ts";
export { modulesLoadedBy } from "./modules/loaded-modules.ts";
export {
  configuredRegistry,
  type LocalRegistry,
  type LocalRegistryOptions,
  startLocalRegistry,
} from "./registry/verdaccio.ts";
export { captureLog } from "./sandbox/capture-log.ts";
export { type Closable, closeAfterEach } from "./sandbox/close-after-each.ts";
export { activateSandboxEnv } from "./sandbox/process-env.ts";
export { mergeSettings, SANDBOX_DEFAULT_SETTINGS } from "./sandbox/settings.ts";
export {
  createSandboxDirs,
  removeDir,
  removeTreeInBackground,
  type SandboxDirs,
  writeFiles,
  writeJson,
} from "./sandbox/temp-dirs.ts";
export {
  createTestSession,
  type FauxModelOption,
  type LoopbackModelOption,
  type ProviderModelOption,
  type TestModelOption,
  type TestSession,
  type TestSessionOptions,
} from "./session/create-test-session.ts";
export { type DeltaKind, deltasOf, messageText } from "./session/event-helpers.ts";
export { type InlineToolSpec, inlineTool } from "./session/inline-tool.ts";
export { readSessionFile } from "./session/session-file.ts";
