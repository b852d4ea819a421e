import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** A package's manifest file and the version it names. */
export interface PackageManifest {
  path: string;
  version: string;
}

/**
 * The manifest of the package `name` as Node's resolution finds it from `from` (a module's URL or a folder's path,
 * as the file system has it: Node resolves from real paths), or undefined when it cannot be found.
 *
 * Code fingerprints need the versions of a few packages at every start. `require.resolve` gave them, at about
 * 0.4 ms a package (it checks `exports` and follows links at every step); this reads the same files Node would try:
 * the package itself when `from` is inside it (a package importing its own name), then `node_modules/<name>` in each
 * folder upwards. A package found neither way (`NODE_PATH`, global folders) is left to `require.resolve`.
 */
export function findPackageManifest(from: string, name: string): PackageManifest | undefined {
  const start = from.startsWith("file:") ? dirname(fileURLToPath(from)) : from;
  return ownPackage(start, name) ?? inNodeModules(start, name) ?? viaRequire(start, name);
}

/** The nearest package.json above `dir` (Node's package scope), when it is `name` with `exports` (self-reference). */
function ownPackage(dir: string, name: string): PackageManifest | undefined {
  const scope = packageScope(dir);
  return scope?.manifest.name === name && scope.manifest.exports !== undefined
    ? withVersion(scope.path, scope.manifest)
    : undefined;
}

/** Each folder's package scope, found once per process (every package asked for from a folder needs it). */
const scopes = new Map<string, { path: string; manifest: ManifestJson } | undefined>();

function packageScope(dir: string): { path: string; manifest: ManifestJson } | undefined {
  if (scopes.has(dir)) return scopes.get(dir);
  let found: { path: string; manifest: ManifestJson } | undefined;
  for (let at = dir; ; at = dirname(at)) {
    const path = join(at, "package.json");
    const text = readOrUndefined(path);
    if (text !== undefined) {
      const manifest = parsed(text);
      found = manifest && { path, manifest };
      break;
    }
    // a package scope ends at a node_modules folder
    if (basename(at) === "node_modules" || dirname(at) === at) break;
  }
  scopes.set(dir, found);
  return found;
}

function inNodeModules(dir: string, name: string): PackageManifest | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (basename(at) !== "node_modules") {
      const path = join(at, "node_modules", name, "package.json");
      const text = readOrUndefined(path);
      if (text !== undefined) {
        const manifest = parsed(text);
        return manifest ? withVersion(path, manifest) : undefined;
      }
    }
    if (dirname(at) === at) return undefined;
  }
}

function viaRequire(dir: string, name: string): PackageManifest | undefined {
  try {
    const path = createRequire(join(dir, "noop.js")).resolve(`${name}/package.json`);
    const manifest = parsed(readFileSync(path, "utf8"));
    return manifest ? withVersion(path, manifest) : undefined;
  } catch {
    return undefined;
  }
}

interface ManifestJson {
  name?: unknown;
  version?: unknown;
  exports?: unknown;
}

function parsed(text: string): ManifestJson | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" ? (value as ManifestJson) : undefined;
  } catch {
    return undefined;
  }
}

const withVersion = (path: string, manifest: ManifestJson): PackageManifest => ({
  path,
  version: String(manifest.version),
});

function readOrUndefined(path: string): string | undefined {
  try {
    // most candidates are missing (each folder upward is tried): no exception for those
    if (!statSync(path, { throwIfNoEntry: false })) return undefined;
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
