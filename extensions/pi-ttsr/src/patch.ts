/**
 * Patched-pi detection: the patched pi sets `globalThis[Symbol.for("@pi-rails/pi-patch")]`. This mirrors
 * `detectPiPatch()` of @pi-rails/agent-core without importing it, because that package's entry also loads a
 * bundled copy of the agent loop, which an extension running inside pi does not need.
 */
export function piPatchFeatures(): readonly string[] | undefined {
  const value = (globalThis as Record<symbol, unknown>)[Symbol.for("@pi-rails/pi-patch")];
  if (typeof value !== "object" || value === null) return undefined;
  const info = value as { version?: unknown; features?: unknown };
  if (typeof info.version !== "number" || !Array.isArray(info.features)) return undefined;
  return info.features.filter((f): f is string => typeof f === "string");
}

export function hasStreamTextHook(): boolean {
  return piPatchFeatures()?.includes("stream_text") ?? false;
}
