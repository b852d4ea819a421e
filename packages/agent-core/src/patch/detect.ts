/**
 * The patched pi marks itself on a global symbol so that an extension can tell, at run time and across
 * module copies, whether the loop hooks it relies on exist, and degrade clearly when they do not.
 */
export const PI_PATCH_SYMBOL: unique symbol = Symbol.for("@pi-rails/pi-patch") as never;

/** Features a patched pi announces. Cancelling a tool call needs none: see `registerCancellableBuiltInTools`. */
export type PiPatchFeature = "stream_text" | "checkpoint" | "loop_checkpoint";

export interface PiPatchInfo {
  version: number;
  features: readonly PiPatchFeature[];
}

/** What the running pi announced, or undefined on stock pi. */
export function detectPiPatch(): PiPatchInfo | undefined {
  const info = (globalThis as Record<symbol, Partial<PiPatchInfo> | null | undefined>)[PI_PATCH_SYMBOL];
  if (typeof info?.version !== "number" || !Array.isArray(info.features)) return undefined;
  return { version: info.version, features: info.features };
}

/** True when the running pi has the given feature. */
export function hasPiPatchFeature(feature: PiPatchFeature): boolean {
  return detectPiPatch()?.features.includes(feature) ?? false;
}
