/**
 * A throwaway HOME for the real `pi` CLI: agent dir, settings and (optionally) models.json for
 * the loopback server, so `pi -p ... --provider loopback --model loopback-model` needs no network
 * and no API key.
 */
import { join } from "node:path";
import { writeProviderConfig } from "../model-server/providers.ts";
import type { ModelServer } from "../model-server/types.ts";
import { mergeSettings, SANDBOX_DEFAULT_SETTINGS } from "../sandbox/settings.ts";
import { createSandboxDirs, removeDir, writeFiles, writeJson } from "../sandbox/temp-dirs.ts";
import { childEnv } from "./child-env.ts";

export interface CliHomeOptions {
  /**
   * Register it and make it the default provider/model: chat completions as the `loopback` provider,
   * another format as its built-in provider's proxy (see `writeProviderConfig`), e.g. anthropic /
   * claude-sonnet-4-5.
   */
  server?: Pick<ModelServer, "baseUrl"> & Partial<Pick<ModelServer, "format">>;
  /** API key for a built-in provider's auth.json (e.g. `ANTHROPIC_OAUTH_TEST_KEY`). */
  apiKey?: string;
  /** Global settings, deep-merged over CLI_DEFAULT_SETTINGS (and the loopback default model). */
  settings?: Record<string, unknown>;
  /** Project settings, `<cwd>/.pi/settings.json`. */
  projectSettings?: Record<string, unknown>;
  /** Files written under the project dir (cwd). */
  files?: Record<string, string>;
  /** Files written under the agent dir. */
  agentFiles?: Record<string, string>;
}

export interface CliHome {
  root: string;
  /** The HOME the CLI runs with. */
  home: string;
  /** `<home>/.pi/agent`, also passed as PI_CODING_AGENT_DIR. */
  agentDir: string;
  /** A project dir to run pi in (default cwd of `runPi`). */
  cwd: string;
  /** The environment `runPi` gives pi for this home (see childEnv). */
  env: NodeJS.ProcessEnv;
  /** Remove the whole tree. */
  dispose(): void;
}

/**
 * Settings every CLI home gets: no install ping, no startup header noise, no hidden SDK retries, no cache warming
 * (`SANDBOX_DEFAULT_SETTINGS`), and the test's project trusted: pi 1.6 loads a project's `.pi/settings.json`,
 * `.pi/extensions` and project packages only in a trusted folder, and `-p` / `--mode json` cannot ask, so without
 * `defaultProjectTrust: "always"` they would be skipped (the in-process SDK trusts the project by default too).
 */
export const CLI_DEFAULT_SETTINGS: Readonly<Record<string, unknown>> = mergeSettings(SANDBOX_DEFAULT_SETTINGS, {
  enableInstallTelemetry: false,
  quietStartup: true,
  defaultProjectTrust: "always",
});

/** Create the temp HOME; call `dispose()` when done. */
export function prepareCliHome(options: CliHomeOptions = {}): CliHome {
  const { root, home, agentDir, cwd } = createSandboxDirs("pi-testkit-cli-");
  try {
    const settings: Record<string, unknown> = { ...CLI_DEFAULT_SETTINGS };
    if (options.server) {
      const target = writeProviderConfig(
        agentDir,
        { format: options.server.format ?? "openai-completions", baseUrl: options.server.baseUrl },
        options.apiKey ? { apiKey: options.apiKey } : {},
      );
      settings["defaultProvider"] = target.provider;
      settings["defaultModel"] = target.modelId;
    }
    writeJson(join(agentDir, "settings.json"), mergeSettings(settings, options.settings));
    if (options.projectSettings) writeJson(join(cwd, ".pi", "settings.json"), options.projectSettings);
    writeFiles(cwd, options.files);
    writeFiles(agentDir, options.agentFiles);
  } catch (error) {
    removeDir(root);
    throw error;
  }
  return {
    root,
    home,
    agentDir,
    cwd,
    env: childEnv(home, agentDir),
    dispose: () => {
      if (process.env["PI_TESTKIT_KEEP"] !== "1") removeDir(root);
    },
  };
}
