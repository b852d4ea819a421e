/**
 * Settings the testkit gives every sandbox, and the merge that lets a test override any key.
 */

/**
 * Every request pi sends is one the test scripted and the loopback server records:
 * - `retry.provider.maxRetries: 0`: no hidden HTTP retries inside the provider SDKs (their default is 2 for
 *   429/5xx). pi's own agent-level retry (`retry.enabled`) is left as pi ships it.
 * - `cacheWarming: "off"`: pi 1.6 keeps a prompt cache warm by re-sending the last request (one output token)
 *   shortly before the provider's cache lifetime ends, during runs and, by default (`idle`), for up to 30 minutes
 *   after; such a request would take the next scripted response. A test of warming sets it back.
 */
export const SANDBOX_DEFAULT_SETTINGS: Readonly<Record<string, unknown>> = {
  retry: { provider: { maxRetries: 0 } },
  cacheWarming: "off",
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deep-merge plain objects (later wins); arrays and scalars are replaced, as pi merges settings. */
export function mergeSettings(...layers: (Record<string, unknown> | undefined)[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer ?? {})) {
      const current = out[key];
      out[key] = isPlainObject(current) && isPlainObject(value) ? mergeSettings(current, value) : value;
    }
  }
  return out;
}
