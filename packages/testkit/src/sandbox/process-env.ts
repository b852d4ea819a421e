/**
 * Points this process's HOME and PI_CODING_AGENT_DIR at a sandbox while an in-process session
 * lives. pi resolves `~/.pi/agent` through `getAgentDir()` (PI_CODING_AGENT_DIR, else
 * `os.homedir()/.pi/agent`) and `~/.agents/skills` through `$HOME`, and extensions call these too;
 * options alone cannot redirect them, the environment can.
 *
 * Several sandboxes may be active at once in one worker: the most recently activated one wins,
 * and releasing one falls back to the newest still active, then to the original environment.
 */
const MANAGED_KEYS = ["HOME", "USERPROFILE", "PI_CODING_AGENT_DIR"] as const;
type ManagedKey = (typeof MANAGED_KEYS)[number];
type EnvValues = Record<ManagedKey, string | undefined>;

let original: EnvValues | undefined;
const stack: { token: symbol; values: EnvValues }[] = [];

function apply(values: EnvValues): void {
  for (const key of MANAGED_KEYS) {
    const value = values[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}

/** Activate HOME/agent dir for a sandbox; call the returned function to release it (idempotent). */
export function activateSandboxEnv(home: string, agentDir: string): () => void {
  if (stack.length === 0) {
    original = {
      HOME: process.env["HOME"],
      USERPROFILE: process.env["USERPROFILE"],
      PI_CODING_AGENT_DIR: process.env["PI_CODING_AGENT_DIR"],
    };
  }
  const token = Symbol("sandbox-env");
  const values: EnvValues = { HOME: home, USERPROFILE: home, PI_CODING_AGENT_DIR: agentDir };
  stack.push({ token, values });
  apply(values);
  return () => {
    const at = stack.findIndex((entry) => entry.token === token);
    if (at === -1) return;
    stack.splice(at, 1);
    const top = stack[stack.length - 1];
    if (top) apply(top.values);
    else if (original) apply(original);
  };
}
