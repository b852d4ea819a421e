import type { Stats } from "node:fs";
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { noteRead, stripControl } from "@pi-rails/agent-core/kit";
import { type ParsedFrontmatter, parseFrontmatter } from "../frontmatter/parse.ts";

/** Files larger than this are read only up to it: a rule is text for a prompt, not a data dump. */
export const MAX_READ_BYTES = 1024 * 1024;

export interface ParsedFile extends ParsedFrontmatter {
  /** Bytes on disk, when more than were read. */
  cutAtBytes?: { size: number; read: number };
  /** The file has NUL bytes: it is not text, and nothing of it reaches a prompt. */
  binary?: boolean;
  /** Bytes that are not UTF-8 were replaced by U+FFFD. */
  invalidUtf8?: boolean;
  /** Control characters (ESC, BEL, C1...; not tab or newlines) removed before parsing. */
  controlChars?: number;
}

/**
 * One parsed file, valid while the file's size, mtime, ctime and inode are unchanged (an edit moves mtime and ctime,
 * even one that restores mtime; a file renamed over another, or written by replace-on-save, is another inode).
 */
export interface CacheEntry {
  mtimeMs: number;
  ctimeMs: number;
  size: number;
  ino: number;
  parsed: ParsedFile;
  /** Read from a parse store and not re-parsed since: saving the store again would change nothing. */
  fromStore?: boolean;
}

interface SharedCache {
  entries: Map<string, CacheEntry>;
  stats: { reads: number; hits: number };
  /** Parse store files already merged into `entries` in this process. */
  storesLoaded: Set<string>;
}

/** Bump when the cached shape changes, so two versions of this module never share entries. */
const CACHE_VERSION = 4;
const KEY = Symbol.for("@pi-rails/rulebook/parse-cache");

/**
 * One cache per process, on `globalThis`: pi loads each extension through its own jiti instance,
 * so rulebook and pi-ttsr may hold separate copies of this module. Keyed by path, valid while
 * size, mtime and ctime are unchanged, so a second `loadRules` re-stats but does not re-read.
 */
export function sharedParseCache(): SharedCache {
  const g = globalThis as unknown as Record<symbol, SharedCache | undefined>;
  g[KEY] ??= { entries: new Map(), stats: { reads: 0, hits: 0 }, storesLoaded: new Set() };
  return g[KEY];
}

/** Counters for tests and `rulebook doctor`: how many files were read versus served from the cache. */
export function parseCacheStats(): { reads: number; hits: number; size: number } {
  const cache = sharedParseCache();
  return { ...cache.stats, size: cache.entries.size };
}

/** Forget everything (tests, and the bench's cold runs). */
export function clearParseCache(): void {
  const cache = sharedParseCache();
  cache.entries.clear();
  cache.storesLoaded.clear();
  cache.stats.reads = 0;
  cache.stats.hits = 0;
}

/** The in-memory key of a file's entry. */
export function cacheKey(path: string): string {
  return `${CACHE_VERSION}\0${path}`;
}

/** Read and parse a rule file, or return the cached parse when the file is unchanged. */
export async function readParsed(path: string, stats: Stats): Promise<{ parsed: ParsedFile; cached: boolean }> {
  noteRead(path);
  const cache = sharedParseCache();
  const key = cacheKey(path);
  const hit = cache.entries.get(key);
  if (hit && sameFile(hit, stats)) {
    cache.stats.hits++;
    return { parsed: hit.parsed, cached: true };
  }
  cache.stats.reads++;
  let parsed: ParsedFile;
  if (stats.size <= MAX_READ_BYTES) {
    // fast path: read straight to a string (no Buffer to collect); bytes only when the text looks odd
    const text = readFileSync(path, "utf8");
    parsed = text.includes("\0") || text.includes("\ufffd") ? parseBytes(readFileSync(path)) : parseText(text);
  } else {
    const head = readHead(path);
    parsed = parseBytes(head);
    if (head.length < stats.size) parsed.cutAtBytes = { size: stats.size, read: head.length };
  }
  cache.entries.set(key, { mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, size: stats.size, ino: stats.ino, parsed });
  return { parsed, cached: false };
}

/** The entry was made from this very file as it is now: any difference in the four means it is read again. */
function sameFile(entry: CacheEntry, stats: Stats): boolean {
  return (
    entry.mtimeMs === stats.mtimeMs &&
    entry.ctimeMs === stats.ctimeMs &&
    entry.size === stats.size &&
    entry.ino === stats.ino
  );
}

/**
 * Bytes to a parsed rule: a file with NUL bytes is binary (not parsed at all); invalid UTF-8 is
 * decoded with replacement characters and flagged; control characters are removed and counted.
 */
export function parseBytes(bytes: Uint8Array): ParsedFile {
  if (bytes.includes(0)) return { data: {}, body: "", hasFrontmatter: false, binary: true };
  let text: string;
  let invalidUtf8 = false;
  try {
    // stream: a multi-byte character cut at the read limit is not an encoding error
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
  } catch {
    invalidUtf8 = true;
    text = new TextDecoder("utf-8").decode(bytes);
  }
  const parsed = parseText(text);
  if (invalidUtf8) parsed.invalidUtf8 = true;
  return parsed;
}

/** Decoded text to a parsed rule, control characters removed and counted. */
function parseText(text: string): ParsedFile {
  const clean = stripControl(text);
  const parsed: ParsedFile = parseFrontmatter(clean);
  if (clean.length !== text.length) parsed.controlChars = text.length - clean.length;
  return parsed;
}

/** The first MAX_READ_BYTES of a larger file. Synchronous: see `listRuleFiles` for why. */
function readHead(path: string): Uint8Array {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(MAX_READ_BYTES);
    let read = 0;
    while (read < MAX_READ_BYTES) {
      const n = readSync(fd, buffer, read, MAX_READ_BYTES - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}
