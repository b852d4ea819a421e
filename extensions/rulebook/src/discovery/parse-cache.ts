import type { Stats } from "node:fs";
import { open } from "node:fs/promises";
import { type ParsedFrontmatter, parseFrontmatter } from "../frontmatter/parse.ts";

/** Files larger than this are read only up to it: a rule is text for a prompt, not a data dump. */
export const MAX_READ_BYTES = 1024 * 1024;

export interface ParsedFile extends ParsedFrontmatter {
  /** Bytes on disk, when more than were read. */
  cutAtBytes?: { size: number; read: number };
}

interface CacheEntry {
  mtimeMs: number;
  size: number;
  parsed: ParsedFile;
}

interface SharedCache {
  entries: Map<string, CacheEntry>;
  stats: { reads: number; hits: number };
}

/** Bump when the cached shape changes, so two versions of this module never share entries. */
const CACHE_VERSION = 1;
const KEY = Symbol.for("@pi-rails/rulebook/parse-cache");

/**
 * One cache per process, on `globalThis`: pi loads each extension through its own jiti instance,
 * so rulebook and pi-ttsr may hold separate copies of this module. Keyed by path, valid while
 * mtime and size are unchanged, so a second `loadRules` re-stats but does not re-read.
 */
function shared(): SharedCache {
  const g = globalThis as unknown as Record<symbol, SharedCache | undefined>;
  let cache = g[KEY];
  if (!cache) {
    cache = { entries: new Map(), stats: { reads: 0, hits: 0 } };
    g[KEY] = cache;
  }
  return cache;
}

/** Counters for tests and `rulebook doctor`: how many files were read versus served from the cache. */
export function parseCacheStats(): { reads: number; hits: number; size: number } {
  const cache = shared();
  return { ...cache.stats, size: cache.entries.size };
}

/** Forget everything (tests, and the bench's cold runs). */
export function clearParseCache(): void {
  const cache = shared();
  cache.entries.clear();
  cache.stats.reads = 0;
  cache.stats.hits = 0;
}

/** Read and parse a rule file, or return the cached parse when the file is unchanged. */
export async function readParsed(path: string, stats: Stats): Promise<{ parsed: ParsedFile; cached: boolean }> {
  const cache = shared();
  const key = `${CACHE_VERSION}\0${path}`;
  const hit = cache.entries.get(key);
  if (hit && hit.mtimeMs === stats.mtimeMs && hit.size === stats.size) {
    cache.stats.hits++;
    return { parsed: hit.parsed, cached: true };
  }
  const { text, read } = await readHead(path, stats.size);
  cache.stats.reads++;
  const parsed: ParsedFile = parseFrontmatter(text);
  if (read < stats.size) parsed.cutAtBytes = { size: stats.size, read };
  cache.entries.set(key, { mtimeMs: stats.mtimeMs, size: stats.size, parsed });
  return { parsed, cached: false };
}

async function readHead(path: string, size: number): Promise<{ text: string; read: number }> {
  const handle = await open(path, "r");
  try {
    const want = Math.min(size, MAX_READ_BYTES);
    const buffer = Buffer.alloc(want);
    let read = 0;
    while (read < want) {
      const { bytesRead } = await handle.read(buffer, read, want - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { text: buffer.toString("utf8", 0, read), read };
  } finally {
    await handle.close();
  }
}
