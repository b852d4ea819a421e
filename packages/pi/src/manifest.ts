/**
 * What the build recorded about the patch: for every upstream file the pi-rails patch changes, the hash of the
 * pristine file it was made for and where the patched copy ships. The launcher trusts nothing else: it swaps a
 * file in only when the installed upstream file is byte for byte the one the patch was made for.
 */
export interface PatchedFile {
  /** The upstream package, e.g. "@earendil-works/pi-agent-core". */
  package: string;
  /** Path inside that package, e.g. "dist/agent-loop.js". */
  path: string;
  /** sha256 (hex) of the pristine upstream file; null for a file the patch adds. */
  upstreamSha256: string | null;
  /** The patched copy, relative to the manifest's folder. */
  patched: string;
  /** sha256 (hex) of the patched copy: an upstream file with this hash is already patched (a pnpm workspace). */
  patchedSha256: string;
}

export interface PatchManifest {
  /** Format of this file; bumped when the shape changes. */
  format: 1;
  /** The upstream packages and the exact versions the patch was made for. */
  upstream: Record<string, string>;
  /** The patch files it was built from, with their sha256 (what `pi --version` and bug reports name). */
  patches: { file: string; sha256: string }[];
  files: PatchedFile[];
}

/** Parses manifest.json; a malformed one is a broken install, named as such. */
export function parseManifest(text: string, where: string): PatchManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${where}: not JSON (${(error as Error).message}); reinstall @pi-rails/pi`);
  }
  const manifest = value as Partial<PatchManifest>;
  if (manifest.format !== 1 || !Array.isArray(manifest.files) || typeof manifest.upstream !== "object") {
    throw new Error(`${where}: not a pi-rails patch manifest of format 1; reinstall @pi-rails/pi`);
  }
  for (const [index, file] of manifest.files.entries()) {
    if (
      typeof file?.package !== "string" ||
      typeof file.path !== "string" ||
      typeof file.patched !== "string" ||
      typeof file.patchedSha256 !== "string"
    ) {
      throw new Error(`${where}: files[${index}] lacks package, path or patched; reinstall @pi-rails/pi`);
    }
  }
  return manifest as PatchManifest;
}
