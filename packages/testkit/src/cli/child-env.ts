/**
 * The environment a `pi` child process gets: the parent's, minus anything that could make pi use
 * real credentials or the developer's config, plus a sandbox HOME/agent dir and every switch that
 * keeps pi off the network (version check, install telemetry, tool downloads).
 */

/** Provider credentials and pi config inherited from the developer's shell are dropped. */
const DROPPED = [
  /^PI_/,
  /** pi 1.6 marks the processes it starts (`AI_AGENT=pi`, `PI_CODING_AGENT=true`); a test may run under a pi. */
  /^AI_AGENT$/,
  /^TAU_/,
  /_API_KEY$/,
  /_TOKEN$/,
  /^AWS_/,
  /^AZURE_/,
  /^GOOGLE_/,
  /^GCLOUD_/,
  /^OPENAI_/,
  /^ANTHROPIC_/,
];

/** Variables that keep pi offline and hermetic. */
export const OFFLINE_ENV: Readonly<Record<string, string>> = {
  /** Disables startup network operations (version check, tool downloads, package installs). */
  PI_OFFLINE: "1",
  PI_SKIP_VERSION_CHECK: "1",
  /** Overrides settings.enableInstallTelemetry. */
  PI_TELEMETRY: "0",
  NO_COLOR: "1",
};

/** Build the child env for a sandbox `home` whose pi agent dir is `agentDir`. */
export function childEnv(
  home: string,
  agentDir: string,
  extra: Record<string, string | undefined> = {},
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined && !DROPPED.some((pattern) => pattern.test(key))) env[key] = value;
  }
  Object.assign(env, OFFLINE_ENV, { HOME: home, USERPROFILE: home, PI_CODING_AGENT_DIR: agentDir });
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}
