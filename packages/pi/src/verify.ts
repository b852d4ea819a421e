import { createHash } from "node:crypto";
import type { PatchedFile, PatchManifest } from "./manifest.ts";

/** sha256 of bytes, hex: the one hash the build and the launcher both use. */
export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** One upstream file that is not the file the patch was made for. */
export interface Mismatch {
  file: PatchedFile;
  /** Absolute path looked at. */
  at: string;
  reason: "missing" | "changed" | "exists";
}

/** How each installed upstream file stands: pristine (the launcher swaps in the patched copy) or already patched. */
export interface UpstreamState {
  mismatches: Mismatch[];
  /** Files to serve from the patched copies. */
  toSwap: PatchedFile[];
}

/**
 * Compares the installed upstream files with the hashes the patch was made for. `read` returns a file's bytes or
 * undefined when it does not exist; `locate` gives where a package's file is installed. Pure apart from those two,
 * so the decision is unit-tested without an install.
 */
export function checkUpstream(
  manifest: PatchManifest,
  locate: (pkg: string, path: string) => string,
  read: (absolutePath: string) => Uint8Array | undefined,
): UpstreamState {
  const state: UpstreamState = { mismatches: [], toSwap: [] };
  for (const file of manifest.files) {
    const at = locate(file.package, file.path);
    const bytes = read(at);
    const hash = bytes === undefined ? undefined : sha256(bytes);
    if (hash !== undefined && hash === file.patchedSha256) continue; // already patched in place
    if (file.upstreamSha256 === null) {
      // A file the patch adds must not exist upstream: if it does, upstream changed under us.
      if (bytes === undefined) state.toSwap.push(file);
      else state.mismatches.push({ file, at, reason: "exists" });
    } else if (hash === undefined) {
      state.mismatches.push({ file, at, reason: "missing" });
    } else if (hash !== file.upstreamSha256) {
      state.mismatches.push({ file, at, reason: "changed" });
    } else {
      state.toSwap.push(file);
    }
  }
  return state;
}

/** The message the launcher prints before refusing to start. */
export function mismatchMessage(
  manifest: PatchManifest,
  mismatches: Mismatch[],
  installed: Record<string, string | undefined>,
): string {
  const wanted = Object.entries(manifest.upstream)
    .map(([name, version]) => `${name}@${version}`)
    .join(", ");
  const found = Object.entries(installed)
    .map(([name, version]) => `${name}@${version ?? "(not found)"}`)
    .join(", ");
  const lines = [
    "pi-rails: refusing to start: the installed pi is not the one the pi-rails patch was made for.",
    `  the patch was made for: ${wanted}`,
    `  installed:              ${found}`,
  ];
  for (const { file, at, reason } of mismatches) {
    const why =
      reason === "missing"
        ? "is missing"
        : reason === "exists"
          ? "exists upstream, but the patch adds it"
          : "differs from the file the patch was made for";
    lines.push(`  ${file.package}/${file.path} ${why} (${at})`);
  }
  lines.push(
    "Running it would mix patched and unpatched pi code. Reinstall to get the pinned upstream:",
    "  npm install -g @pi-rails/pi",
  );
  return lines.join("\n");
}
