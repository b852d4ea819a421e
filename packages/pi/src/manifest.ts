/**
 * What the build recorded (dist/bundle/manifest.json, written by scripts/build-bundle.mjs): the sha256 and size
 * of every file of the bundle, and of every file of the upstream packages the bundle loads from node_modules at
 * run time. The launcher runs nothing of either that does not match.
 */
export interface FileEntry {
  sha256: string;
  size: number;
}

export interface PatchManifest {
  /** Format of this file; bumped when the shape changes. */
  format: 2;
  /** The upstream pi the bundle was built from: its package.json, docs and themes are read from that package. */
  pi: { name: string; version: string };
  /** Node versions pi supports (its `engines.node`). */
  node: string;
  /** The patch files applied to the dist the bundle was built from; empty for a build made without the patch. */
  patches: { package: string; file: string; sha256: string }[];
  /** The bundle: its entry and every file, by name in dist/bundle. */
  bundle: { entry: string; files: Record<string, FileEntry> };
  /** Each worker file of the bundle and the upstream packages it loads (a worker thread runs no module hooks). */
  workers: Record<string, string[]>;
  /** The packages left outside the bundle: version and files by path inside the package. */
  upstream: Record<string, { version: string; files: Record<string, FileEntry> }>;
}

const isEntry = (value: unknown): value is FileEntry =>
  typeof (value as FileEntry)?.sha256 === "string" && typeof (value as FileEntry).size === "number";

/** Parses manifest.json; a malformed one is a broken install, named as such. */
export function parseManifest(text: string, where: string): PatchManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${where}: not JSON (${(error as Error).message})`);
  }
  const manifest = value as Partial<PatchManifest>;
  if (
    manifest?.format !== 2 ||
    typeof manifest.pi?.version !== "string" ||
    !Array.isArray(manifest.patches) ||
    typeof manifest.bundle?.entry !== "string" ||
    typeof manifest.bundle.files !== "object" ||
    typeof manifest.upstream !== "object" ||
    typeof manifest.workers !== "object"
  ) {
    throw new Error(`${where}: not a pi-rails bundle manifest of format 2`);
  }
  const lists: [string, Record<string, unknown>][] = [
    ["bundle", manifest.bundle.files],
    ...Object.entries(manifest.upstream).map(([name, pkg]): [string, Record<string, unknown>] => [name, pkg.files]),
  ];
  for (const [owner, files] of lists) {
    if (typeof files !== "object" || files === null) throw new Error(`${where}: ${owner} lists no files`);
    for (const [path, entry] of Object.entries(files)) {
      if (!isEntry(entry)) throw new Error(`${where}: ${owner} file ${path} lacks sha256 or size`);
    }
  }
  if (!(manifest.bundle.entry in manifest.bundle.files)) {
    throw new Error(`${where}: the entry ${manifest.bundle.entry} is not among the bundle's files`);
  }
  return manifest as PatchManifest;
}
