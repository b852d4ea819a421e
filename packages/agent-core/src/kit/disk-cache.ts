import { createHash } from "node:crypto";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { findPackageManifest } from "./package-manifest.ts";
import { noteRead } from "./read-set.ts";

/**
 * What the extensions' disk caches (pi-ttsr's compiled rule sets, rulebook's parse store) share: a fingerprint of
 * the code that produced an entry, one env switch convention, atomic writes, and one read / check / ignore routine.
 * Callers never fail on cache trouble: only `writeFileAtomicSync` throws (for callers that are not caches).
 */

/**
 * The cache dir an env variable names: `off` means no cache (`undefined`), any other value is the dir, unset or
 * empty falls back to `fallback` (e.g. `<agent dir>/cache/<package>`). One convention for `PI_TTSR_CACHE_DIR` and
 * `PI_RULEBOOK_CACHE_DIR`.
 */
export function cacheDirFromEnv(
  variable: string,
  fallback: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const value = env[variable];
  if (value === "off") return undefined;
  return value || fallback;
}

export interface CodeFingerprintOptions {
  /** The package whose code is hashed, found by name (`@pi-rails/rulebook`). */
  packageName: string;
  /**
   * A module URL to resolve the package from (the caller's `import.meta.url`): the same answer from src/ under
   * tests, from dist/, and from another package's bundle that includes the caller.
   */
  from: string;
  /** Files under the package root whose bytes decide what an entry holds (`src/matcher/compile.ts`). */
  sources: readonly string[];
  /**
   * Packages whose versions decide it too (`gray-matter`), resolved from `from`; `a>b` is `b` as package `a`
   * resolves it (from its real folder: `gray-matter>js-yaml`, a dependency's own dependency, which the caller's
   * versions do not pin).
   */
  dependencies?: readonly string[];
  /** The cache's own format number. */
  salt?: string;
}

/** Each fingerprint computed in this process, with the files it read (noted again on every use: `noteRead`). */
const fingerprints = new Map<string, { digest: string; reads: string[] }>();

/** A fingerprint as a result can keep it: what it was asked with (`key`), its digest and the files it read. */
export interface KnownFingerprint {
  key: string;
  digest: string;
  reads: string[];
}

/**
 * The fingerprints this process has computed, to keep beside a result recorded with `recordReads`: the files each
 * read were noted, so while that result's reads are unchanged, so are these (`rememberFingerprints`).
 */
export function knownFingerprints(): KnownFingerprint[] {
  return [...fingerprints].map(([key, { digest, reads }]) => ({ key, digest, reads }));
}

/**
 * Takes fingerprints kept beside a result whose reads are unchanged (a start-up snapshot that is used): the next
 * `codeFingerprint` with the same options answers without resolving packages or reading files. One this process
 * computed itself is kept.
 */
export function rememberFingerprints(known: readonly KnownFingerprint[]): void {
  for (const { key, digest, reads } of known) {
    if (typeof key !== "string" || typeof digest !== "string" || !Array.isArray(reads)) continue;
    if (!fingerprints.has(key)) fingerprints.set(key, { digest, reads: reads.filter((r) => typeof r === "string") });
  }
}

/**
 * A hash of a package's own code: its version, the listed dependencies' versions and the bytes of the listed
 * source files, so a changed producer never reads entries an older one wrote, even when the version number did not
 * change (a development build, a patched install). A file or package that cannot be found is hashed as missing.
 */
export function codeFingerprint(options: CodeFingerprintOptions): string {
  const key = JSON.stringify(options);
  const known = fingerprints.get(key);
  if (known !== undefined) {
    for (const path of known.reads) noteRead(path);
    return known.digest;
  }
  const reads: string[] = [];
  const hash = createHash("sha256").update(options.salt ?? "");
  let root = "";
  for (const name of [options.packageName, ...(options.dependencies ?? [])]) {
    const manifest = dependencyManifest(options.from, name);
    if (manifest === undefined) {
      hash.update(`\0missing ${name}`);
      continue;
    }
    reads.push(...manifest.via, manifest.path);
    if (name === options.packageName) root = dirname(manifest.path);
    hash.update(`\0${name}@${manifest.version}`);
  }
  for (const file of options.sources) {
    const bytes = root ? fileBytes(join(root, file)) : undefined;
    if (bytes === undefined) {
      hash.update(`\0missing ${file}`);
      continue;
    }
    reads.push(join(root, file));
    hash.update(bytes);
  }
  const digest = hash.digest("hex");
  fingerprints.set(key, { digest, reads });
  for (const path of reads) noteRead(path);
  return digest;
}

/**
 * Where each package's manifest is from a folder (undefined: it cannot be found), found once per process and
 * folder (`findPackageManifest`): the caches ask for the same few packages many times.
 */
const manifestPaths = new Map<string, string | undefined>();

/**
 * `packageManifest`, where `a>b` is `b` resolved from the real folder of `a` (as `a`'s own imports find it), with
 * the manifests found on the way (`a`'s decides where `b` is found: they are read too).
 */
function dependencyManifest(from: string, name: string): { path: string; version: string; via: string[] } | undefined {
  const via: string[] = [];
  let at = from;
  let manifest: { path: string; version: string } | undefined;
  for (const step of name.split(">")) {
    if (manifest) {
      try {
        at = pathToFileURL(join(realpathSync(dirname(manifest.path)), "package.json")).href;
      } catch {
        return undefined;
      }
      via.push(manifest.path);
    }
    manifest = packageManifest(at, step);
    if (manifest === undefined) return undefined;
  }
  return manifest && { ...manifest, via };
}

/** A package's manifest and version (read from disk, never the module cache, so an upgrade in place is seen). */
function packageManifest(from: string, name: string): { path: string; version: string } | undefined {
  const key = `${from.slice(0, from.lastIndexOf("/") + 1)}\0${name}`;
  if (!manifestPaths.has(key)) manifestPaths.set(key, findPackageManifest(from, name)?.path);
  const path = manifestPaths.get(key);
  const text = path === undefined ? undefined : fileBytes(path);
  if (path === undefined || text === undefined) return undefined;
  try {
    return { path, version: String((JSON.parse(text.toString("utf8")) as { version?: unknown }).version) };
  } catch {
    return undefined;
  }
}

/** Files read for fingerprints, kept while their signature holds (several fingerprints hash the same files). */
const files = new Map<string, { signature: string; bytes: Buffer }>();

/** A file's bytes (undefined when it cannot be read), read again only when its signature changed. */
function fileBytes(path: string): Buffer | undefined {
  try {
    const stat = statSync(path, { bigint: true });
    const signature = `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
    const known = files.get(path);
    if (known?.signature === signature) return known.bytes;
    const bytes = readFileSync(path);
    files.set(path, { signature, bytes });
    return bytes;
  } catch {
    return undefined;
  }
}

let sequence = 0;

/**
 * Writes `text` to `file` so a reader sees the old file or the new one, never a torn one: a temp file in the same
 * dir, then a rename (creating the dir). Throws on failure, after removing the temp file.
 */
export function writeFileAtomicSync(file: string, text: string, mode = 0o600): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${sequence++}.tmp`;
  try {
    writeFileSync(temp, text, { mode });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * What a JSON cache file holds, as `accept` judges it (the entry, or undefined when it does not fit: another
 * format, another fingerprint). A file that is missing, unreadable or not JSON, or that `accept` throws on, is
 * undefined too: cache trouble only costs the work the cache would have saved.
 */
export function readJsonCache<T>(file: string, accept: (data: unknown) => T | undefined): T | undefined {
  try {
    // a first start finds no cache file: no exception for that
    if (!statSync(file, { throwIfNoEntry: false })) return undefined;
    return accept(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return undefined;
  }
}

/** Writes `data` as a JSON cache file (`writeFileAtomicSync`); false, never a throw, when it could not. */
export function writeJsonCache(file: string, data: unknown): boolean {
  try {
    writeFileAtomicSync(file, JSON.stringify(data));
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `value` is plain JSON values only (an absent optional property may be undefined), so that writing it to a
 * JSON cache and reading it back gives the same value: not `Infinity` (which becomes `null`), a class instance, a
 * function. A cache keeps only such values.
 */
export function jsonFaithful(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object") return false;
  // plain loops: a start checks its whole snapshot (hundreds of rules), before any of this is optimized
  if (Array.isArray(value)) {
    // a hole reads back as null
    for (let i = 0; i < value.length; i++) if (!jsonFaithful(value[i])) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const v = record[key];
    if (v !== undefined && !jsonFaithful(v)) return false;
  }
  return true;
}

/**
 * The files of `folder` that `accept` takes, newest first (by modification time; none when it cannot be read):
 * the order a cache looks its entries up in, and keeps them by (`pruneToNewest`).
 */
export function filesNewestFirst(folder: string, accept: (name: string) => boolean): string[] {
  try {
    return readdirSync(folder)
      .filter(accept)
      .map((name) => ({
        file: join(folder, name),
        at: statSync(join(folder, name), { throwIfNoEntry: false })?.mtimeMs,
      }))
      .sort((x, y) => (y.at ?? 0) - (x.at ?? 0))
      .map((entry) => entry.file);
  } catch {
    return [];
  }
}

/**
 * Removes all but the `keep` newest files `accept` takes from `folder`, so a cache of one file per key does not
 * grow without end. Another process may be reading one (fine) or pruning too (a file gone in between is skipped).
 * Never throws.
 */
export function pruneToNewest(folder: string, keep: number, accept: (name: string) => boolean): void {
  try {
    for (const old of filesNewestFirst(folder, accept).slice(keep)) rmSync(old, { force: true });
  } catch {}
}
