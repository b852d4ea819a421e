/**
 * Settings the testkit gives every sandbox, and the merge that lets a test override any key.
 */

/**
 * No hidden HTTP retries inside the OpenAI SDK (its default is 2 for 429/5xx), so every attempt
 * pi makes is one request the loopback server records. pi's own agent-level retry
 * (`retry.enabled`) is left as pi ships it.
 */
export const SANDBOX_DEFAULT_SETTINGS: Readonly<Record<string, unknown>> = {
  retry: { provider: { maxRetries: 0 } },
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
