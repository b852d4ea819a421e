import { detectPiPatch } from "@pi-rails/agent-core/kit";

/**
 * Patched-pi detection (`globalThis[Symbol.for("@pi-rails/pi-patch")]`). Imported from the agent-core kit, which
 * carries the logic without the bundled agent loop: an extension running inside pi needs no second loop.
 */
export function piPatchFeatures(): readonly string[] | undefined {
  return detectPiPatch()?.features;
}

export function hasStreamTextHook(): boolean {
  return piPatchFeatures()?.includes("stream_text") ?? false;
}
