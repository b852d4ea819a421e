/**
 * A real pi AgentSession, in-process, built through pi's SDK the way the CLI builds it, but with
 * a throwaway HOME / agent dir / project dir and a scripted model. Behaviour tests of extensions
 * run against this instead of any imitation of pi.
 */
import { isAbsolute, join, resolve } from "node:path";
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import {
  type Api,
  type AssistantMessage,
  type FauxProviderHandle,
  type FauxResponseStep,
  fauxProvider,
  type Model,
} from "@earendil-works/pi-ai";
import {
  type AgentSession,
  type AgentSessionEvent,
  createAgentSession,
  DefaultResourceLoader,
  type ExtensionError,
  type ExtensionFactory,
  type FileEntry,
  ModelRuntime,
  type PromptOptions,
  SessionManager,
  SettingsManager,
  type ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import { LOOPBACK_MODEL_ID, LOOPBACK_PROVIDER } from "../model-server/loopback-model.ts";
import { writeModelsJson } from "../model-server/models-json.ts";
import { writeProviderConfig } from "../model-server/providers.ts";
import type { ModelServer } from "../model-server/types.ts";
import { activateSandboxEnv } from "../sandbox/process-env.ts";
import { mergeSettings, SANDBOX_DEFAULT_SETTINGS } from "../sandbox/settings.ts";
import { createSandboxDirs, removeDir, writeFiles, writeJson } from "../sandbox/temp-dirs.ts";
import { readSessionFile } from "./session-file.ts";

/** pi-ai's scripted in-process provider (`fauxProvider`): deterministic, no sockets. */
export interface FauxModelOption {
  kind: "faux";
  /** Responses consumed in order (`fauxAssistantMessage(...)` or factories); more via `faux.setResponses`. */
  responses?: FauxResponseStep[];
  /** Tokens per delta; pi's faux provider counts 4 chars per token. Default 1 (4-char deltas). */
  tokenSize?: number;
  /** Streaming pace; default unthrottled. */
  tokensPerSecond?: number;
  /** Declare the faux model reasoning-capable (lets thinking levels other than "off" apply). */
  reasoning?: boolean;
}

/**
 * pi's real openai-completions provider against a loopback `startModelServer`: the custom `loopback` provider of
 * `<agentDir>/models.json`, as the CLI sees it.
 */
export interface LoopbackModelOption {
  kind: "loopback";
  server: Pick<ModelServer, "baseUrl">;
  /** Fields laid over the registry's model (e.g. `reasoning: true`); the request still goes through pi's runtime. */
  overrides?: Partial<Model<"openai-completions">>;
}

/**
 * pi's real client for the server's wire format (Anthropic, OpenAI Responses, Gemini, or chat
 * completions), configured as users configure a proxy: `models.json` gives the built-in provider the
 * server as `baseUrl`, `auth.json` a key; the model is the real one (e.g. claude-sonnet-4-5) from pi's
 * registry. See `writeProviderConfig`.
 */
export interface ProviderModelOption {
  kind: "provider";
  server: Pick<ModelServer, "format" | "baseUrl">;
  /** Key for auth.json, e.g. `ANTHROPIC_OAUTH_TEST_KEY`; default the format's test key. */
  apiKey?: string;
  /**
   * Another real model of the same provider from pi's registry (e.g. `gemini-3.1-pro-preview`, whose API has rules
   * of its own); default the format's model (`PROVIDER_TARGETS`).
   */
  modelId?: string;
}

export type TestModelOption = FauxModelOption | LoopbackModelOption | ProviderModelOption;

export interface TestSessionOptions {
  /** Default `{ kind: "faux" }`. */
  model?: TestModelOption;
  /** Files written under the project dir (cwd), e.g. `{ ".pi/rules/a.md": "..." }`. */
  files?: Record<string, string>;
  /** Files written under the agent dir (the sandbox's `~/.pi/agent`). */
  agentFiles?: Record<string, string>;
  /** Global settings, deep-merged over SANDBOX_DEFAULT_SETTINGS into `<agentDir>/settings.json`. */
  settings?: Record<string, unknown>;
  /** Project settings, written to `<cwd>/.pi/settings.json`. */
  projectSettings?: Record<string, unknown>;
  /** Inline extensions (what `extensionFactories` of DefaultResourceLoader takes). */
  extensions?: ExtensionFactory[];
  /** Extension files or package dirs loaded like `pi -e` (relative paths resolve against process.cwd()). */
  extensionPaths?: string[];
  /** Keep a real session file under `<agentDir>/sessions`; default in-memory. */
  persist?: boolean;
  /** Tool allowlist, as `pi --tools`. */
  tools?: string[];
  noTools?: "all" | "builtin";
  customTools?: ToolDefinition[];
  thinkingLevel?: ThinkingLevel;
  /** Replace pi's system prompt (as `pi --system-prompt`). */
  systemPrompt?: string;
  appendSystemPrompt?: string[];
  /**
   * Point process.env.HOME / PI_CODING_AGENT_DIR at the sandbox while the session lives, so pi
   * and extensions calling `getAgentDir()` / `os.homedir()` never see the developer's home.
   * Default true.
   */
  isolateEnv?: boolean;
  /** Don't throw when an extension fails to load; read `extensionLoadErrors` instead. */
  allowExtensionErrors?: boolean;
  /** Leave the temp dirs on disk after dispose (debugging). Also on with env PI_TESTKIT_KEEP=1. */
  keepTempDirs?: boolean;
}

export interface TestSession {
  session: AgentSession;
  model: Model<Api>;
  /** Root of the temp tree (holds home/ and project/). */
  root: string;
  home: string;
  agentDir: string;
  cwd: string;
  /** The faux provider (kind "faux"): `setResponses`, `appendResponses`, `state.callCount`. */
  faux?: FauxProviderHandle;
  /** pi's model runtime of this session (auth.json, models.json of the sandbox agent dir, and the faux provider). */
  modelRuntime: ModelRuntime;
  /** Session file path when `persist`; pi writes it once the first assistant message exists. */
  sessionFile?: string;
  /** Every AgentSession event received, in order (subscribed before extensions start). */
  events: AgentSessionEvent[];
  /** Errors thrown by extension handlers while the session ran. */
  extensionErrors: ExtensionError[];
  /** Errors loading `extensionPaths` (only non-empty with `allowExtensionErrors`). */
  extensionLoadErrors: { path: string; error: string }[];
  /** `session.prompt(text)`, awaited until the run is idle; returns the last assistant message. */
  prompt(text: string, options?: PromptOptions): Promise<AssistantMessage | undefined>;
  /** Parsed entries of the session file (header first); `[]` when not persisted or not yet written. */
  readSessionEntries(): FileEntry[];
  /** Emit session_shutdown, dispose the session, restore env, remove temp dirs. */
  dispose(): Promise<void>;
}

/** Build a real pi AgentSession in a sandbox. Always `await t.dispose()` (e.g. in afterEach). */
export async function createTestSession(options: TestSessionOptions = {}): Promise<TestSession> {
  const dirs = createSandboxDirs();
  const { root, home, agentDir, cwd } = dirs;
  const releaseEnv = options.isolateEnv === false ? () => {} : activateSandboxEnv(home, agentDir);
  const keep = options.keepTempDirs === true || process.env["PI_TESTKIT_KEEP"] === "1";
  let faux: FauxProviderHandle | undefined;
  let session: AgentSession | undefined;

  const cleanup = () => {
    releaseEnv();
    if (!keep) removeDir(root);
  };

  try {
    writeFiles(cwd, options.files);
    writeFiles(agentDir, options.agentFiles);
    writeJson(join(agentDir, "settings.json"), mergeSettings(SANDBOX_DEFAULT_SETTINGS, options.settings));
    if (options.projectSettings) writeJson(join(cwd, ".pi", "settings.json"), options.projectSettings);

    const modelOption: TestModelOption = options.model ?? { kind: "faux" };
    const target =
      modelOption.kind === "provider"
        ? writeProviderConfig(agentDir, modelOption.server, modelOption.apiKey ? { apiKey: modelOption.apiKey } : {})
        : undefined;
    if (modelOption.kind === "loopback") writeModelsJson(agentDir, modelOption.server);
    // pi 1.6's model runtime reads auth.json and models.json of the sandbox agent dir; no catalog refresh over the
    // network (allowModelNetwork is off by default).
    const modelRuntime = await ModelRuntime.create({
      authPath: join(agentDir, "auth.json"),
      modelsPath: join(agentDir, "models.json"),
    });
    let model: Model<Api> | undefined;
    if (modelOption.kind === "faux") {
      const tokenSize = modelOption.tokenSize ?? 1;
      faux = fauxProvider({
        tokenSize: { min: tokenSize, max: tokenSize },
        ...(modelOption.tokensPerSecond !== undefined ? { tokensPerSecond: modelOption.tokensPerSecond } : {}),
        ...(modelOption.reasoning ? { models: [{ id: "faux-1", name: "Faux Model", reasoning: true }] } : {}),
      });
      faux.setResponses(modelOption.responses ?? []);
      // A provider of this session's runtime only: nothing global to unregister.
      modelRuntime.registerNativeProvider(faux.provider);
      model = faux.getModel() as Model<Api>;
    } else {
      const provider = modelOption.kind === "loopback" ? LOOPBACK_PROVIDER : (target?.provider ?? "");
      const modelId =
        modelOption.kind === "loopback" ? LOOPBACK_MODEL_ID : (modelOption.modelId ?? target?.modelId ?? "");
      const found = modelRuntime.getModel(provider, modelId);
      if (!found) throw new Error(`createTestSession: pi has no model ${provider}/${modelId}`);
      model = modelOption.kind === "loopback" ? ({ ...found, ...modelOption.overrides } as Model<Api>) : found;
    }
    const settingsManager = SettingsManager.create(cwd, agentDir);

    const resourceLoader = new DefaultResourceLoader({
      cwd,
      agentDir,
      settingsManager,
      extensionFactories: options.extensions ?? [],
      additionalExtensionPaths: (options.extensionPaths ?? []).map((p) => (isAbsolute(p) ? p : resolve(p))),
      ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
      ...(options.appendSystemPrompt ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
    });
    await resourceLoader.reload();
    const extensionLoadErrors = [...resourceLoader.getExtensions().errors];
    if (extensionLoadErrors.length > 0 && !options.allowExtensionErrors) {
      const list = extensionLoadErrors.map((e) => `  ${e.path}: ${e.error}`).join("\n");
      throw new Error(`createTestSession: extensions failed to load:\n${list}`);
    }

    const sessionManager = options.persist
      ? SessionManager.create(cwd, join(agentDir, "sessions"))
      : SessionManager.inMemory(cwd);

    const created = await createAgentSession({
      cwd,
      agentDir,
      modelRuntime,
      model,
      resourceLoader,
      sessionManager,
      settingsManager,
      ...(options.thinkingLevel ? { thinkingLevel: options.thinkingLevel } : {}),
      ...(options.tools ? { tools: options.tools } : {}),
      ...(options.noTools ? { noTools: options.noTools } : {}),
      ...(options.customTools ? { customTools: options.customTools } : {}),
    });
    const agentSession = created.session;
    session = agentSession;

    const events: AgentSessionEvent[] = [];
    agentSession.subscribe((event) => {
      events.push(event);
    });
    const extensionErrors: ExtensionError[] = [];
    // Binding is what starts extensions: it emits session_start, as pi's print/RPC modes do.
    await agentSession.bindExtensions({ onError: (error) => extensionErrors.push(error) });

    let disposed = false;
    return {
      session: agentSession,
      model,
      root,
      home,
      agentDir,
      cwd,
      ...(faux ? { faux } : {}),
      modelRuntime,
      get sessionFile() {
        return agentSession.sessionFile;
      },
      events,
      extensionErrors,
      extensionLoadErrors,
      async prompt(text, promptOptions) {
        await agentSession.prompt(text, promptOptions);
        await agentSession.agent.waitForIdle();
        return lastAssistant(agentSession);
      },
      readSessionEntries() {
        return readSessionFile(agentSession.sessionFile);
      },
      async dispose() {
        if (disposed) return;
        disposed = true;
        try {
          if (agentSession.isStreaming) await agentSession.abort();
          const runner = agentSession.extensionRunner;
          if (runner.hasHandlers("session_shutdown")) await runner.emit({ type: "session_shutdown", reason: "quit" });
        } finally {
          agentSession.dispose();
          cleanup();
        }
      },
    };
  } catch (error) {
    session?.dispose();
    cleanup();
    throw error;
  }
}

function lastAssistant(session: AgentSession): AssistantMessage | undefined {
  for (let i = session.messages.length - 1; i >= 0; i--) {
    const message = session.messages[i];
    if (message?.role === "assistant") return message as AssistantMessage;
  }
  return undefined;
}
