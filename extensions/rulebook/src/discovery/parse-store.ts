import { createHash } from "node:crypto";
import { join } from "node:path";
import { cacheDirFromEnv, codeFingerprint, readJsonCache, writeJsonCache } from "@pi-rails/agent-core/kit";
import { type CacheEntry, cacheKey, sharedParseCache } from "./parse-cache.ts";

/**
 * The parse cache on disk. A session whose rule files did not change starts without loading the YAML parser or
 * parsing a file: each entry is valid while its file's size, mtime, ctime and inode are unchanged (one lstat, which listing the
 * folder does anyway), and the whole store
 * only for the format, rulebook version, gray-matter version and parser code that wrote it. Written atomically;
 * a store that does not parse or does not fit is ignored and rewritten. Trouble with the store never fails a load.
 */

/** Bump when the stored shape changes. */
const FORMAT = 2;

/** How many entries each store held when this process last read or wrote it (a file set that shrank is saved). */
const storedCounts = new Map<string, number>();

/** The parser's modules, read from the package's shipped src/ so every build of it hashes the same files. */
const PARSER_SOURCES = [
  "frontmatter/parse",
  "frontmatter/flat-yaml",
  "frontmatter/fallback",
  "prompt/escape",
  "discovery/parse-cache",
];

/**
 * A hash of everything that decides what a parse yields: a changed parser never reads an older one's entries.
 * It must come out the same in every form this code runs in (src/ under tests, dist/, or bundled into another
 * package's pi entry, as pi-ttsr does): two extensions sharing one store with different fingerprints would each
 * reject and rewrite the other's store. So it hashes this package's src/ and versions, found by package name.
 */
function parserFingerprint(): string {
  return codeFingerprint({
    packageName: "@pi-rails/rulebook",
    from: import.meta.url,
    sources: PARSER_SOURCES.map((file) => `src/${file}.ts`),
    // js-yaml parses the YAML, the one gray-matter depends on (rulebook does not: its version is gray-matter's
    // choice); agent-core: the kit's stripControl cleans what is parsed
    dependencies: ["gray-matter", "gray-matter>js-yaml", "@pi-rails/agent-core"],
    salt: `${FORMAT}`,
  });
}

/**
 * Where a project's parse store lives: `<agentDir>/cache/rulebook/<hash of cwd>.json`, or under
 * `PI_RULEBOOK_CACHE_DIR`; `off` there means no store.
 */
export function defaultParseStore(agentDir: string, cwd: string, env: NodeJS.ProcessEnv = process.env): string | false {
  const dir = cacheDirFromEnv("PI_RULEBOOK_CACHE_DIR", join(agentDir, "cache", "rulebook"), env);
  if (!dir) return false;
  return join(dir, `${createHash("sha256").update(cwd).digest("hex").slice(0, 24)}.json`);
}

/** A cache entry with the path it belongs to. */
type StoredEntry = Omit<CacheEntry, "fromStore"> & { path: string };

/** Merges a store into the in-memory parse cache (once per store and process; entries already there win). */
export function loadParseStore(file: string | false): void {
  if (!file) return;
  const cache = sharedParseCache();
  if (cache.storesLoaded.has(file)) return;
  cache.storesLoaded.add(file);
  const stored = readJsonCache(file, (data) => {
    const { fingerprint, entries } = (data ?? {}) as { fingerprint?: unknown; entries?: unknown };
    return fingerprint === parserFingerprint() && Array.isArray(entries) ? (entries as unknown[]) : undefined;
  });
  if (!stored) return;
  storedCounts.set(file, stored.length);
  for (const e of stored) {
    if (!isStoredEntry(e)) continue;
    const { path, ...entry } = e;
    if (!cache.entries.has(cacheKey(path))) cache.entries.set(cacheKey(path), { ...entry, fromStore: true });
  }
}

/**
 * Writes the entries of `paths` (the files one load used) to the store, when any of them was parsed rather than
 * read from it, or the set of files changed. Entries whose values JSON cannot carry (a YAML date) are left out.
 */
export function saveParseStore(file: string | false, paths: Iterable<string>): void {
  if (!file) return;
  const cache = sharedParseCache();
  const entries: StoredEntry[] = [];
  let changed = false;
  for (const path of new Set(paths)) {
    const entry: CacheEntry | undefined = cache.entries.get(cacheKey(path));
    if (!entry) continue;
    if (!entry.fromStore) {
      // What JSON cannot carry is parsed again each session; it must not make every session rewrite the store.
      // (An entry read from the store came from JSON: it needs no check.)
      if (!isJsonData(entry.parsed)) continue;
      changed = true;
    }
    const { mtimeMs, ctimeMs, size, ino, parsed } = entry;
    entries.push({ path, mtimeMs, ctimeMs, size, ino, parsed });
  }
  if (!changed && entries.length === storedCounts.get(file)) return;
  if (!writeJsonCache(file, { fingerprint: parserFingerprint(), entries })) return;
  for (const e of entries) {
    const entry = cache.entries.get(cacheKey(e.path));
    if (entry) entry.fromStore = true;
  }
  storedCounts.set(file, entries.length);
}

function isStoredEntry(e: unknown): e is StoredEntry {
  const x = e as StoredEntry;
  return (
    typeof x === "object" &&
    x !== null &&
    typeof x.path === "string" &&
    typeof x.mtimeMs === "number" &&
    typeof x.ctimeMs === "number" &&
    typeof x.size === "number" &&
    typeof x.ino === "number" &&
    typeof x.parsed === "object" &&
    x.parsed !== null &&
    typeof x.parsed.body === "string" &&
    typeof x.parsed.data === "object"
  );
}

/** Plain JSON values only: what survives a write and a read unchanged. */
function isJsonData(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonData);
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    // An undefined property is an absent optional one: JSON drops it, and reading it back gives undefined again.
    return (
      (proto === Object.prototype || proto === null) &&
      Object.values(value).every((v) => v === undefined || isJsonData(v))
    );
  }
  return false;
}
