import { createHash, hash } from "node:crypto";
import { join } from "node:path";
import { codeFingerprint, jsonFaithful, readJsonCache, writeJsonCache } from "@pi-rails/agent-core/kit";
import { type NormalizeResult, normalizeRule } from "./normalize.ts";
import type { SourceRule } from "./types.ts";

/**
 * Normalized rules on disk, so a session start whose rule files did not change does not normalize 200 rules again
 * (reading their conditions, scopes and globs: about 10 ms of a start). An entry is keyed by the whole rule rulebook
 * discovered (its path, file mtime, frontmatter and body) and whether it is a builtin, hashed: any edit is another key. The
 * file is named by a hash of the project, in a folder named by the normalizing code's fingerprint (pi-ttsr's and
 * rulebook's condition readers), so changed code never reads an older one's entries. Cache trouble only costs the
 * normalization it would have saved; a result JSON cannot carry unchanged is normalized again each time.
 */

/** Bump when the stored shape changes. */
const FORMAT = 2;

/** The code deciding what a normalization yields, in pi-ttsr... */
const TTSR_SOURCES = ["src/rules/normalize.ts", "src/rules/types.ts", "src/rules/normalized-store.ts"];
/** ...and the condition and glob readers it uses from rulebook. */
const RULEBOOK_SOURCES = [
  "src/conditions/stream.ts",
  "src/conditions/inline-flags.ts",
  "src/globs/check.ts",
  "src/frontmatter/split.ts",
  "src/frontmatter/outside-class.ts",
];

function folderOf(cacheDir: string): string {
  const from = import.meta.url;
  const ttsr = codeFingerprint({ packageName: "@pi-rails/pi-ttsr", from, sources: TTSR_SOURCES, salt: `${FORMAT}` });
  const rulebook = codeFingerprint({ packageName: "@pi-rails/rulebook", from, sources: RULEBOOK_SOURCES });
  return join(
    cacheDir,
    `rules-${createHash("sha256")
      .update(ttsr + rulebook)
      .digest("hex")
      .slice(0, 16)}`,
  );
}

/** The store of one project (its cwd) in `cacheDir`. */
export function normalizedStoreFile(cacheDir: string, cwd: string): string {
  return join(folderOf(cacheDir), `${createHash("sha256").update(cwd).digest("hex").slice(0, 24)}.json`);
}

/**
 * `normalizeRule` through the store: `normalize` answers from it when it holds the very rule, else normalizes (and
 * throws what normalizeRule throws); `save` writes the entries this load used when one was new or one went away.
 */
export class NormalizedStore {
  /**
   * Stored entries: a hash of the rule -> its result. A result is handed out as it is (no copy): the caller must not
   * change it before `save`, and each is handed out once per load.
   */
  private readonly known = new Map<string, NormalizeResult>();
  private readonly used = new Map<string, NormalizeResult>();
  private changed = false;

  constructor(private readonly file: string | undefined) {
    if (!file) return;
    readJsonCache(file, (data) => {
      const { format, entries } = (data ?? {}) as { format?: unknown; entries?: unknown };
      if (format !== FORMAT || !Array.isArray(entries)) return;
      for (const e of entries) {
        if (Array.isArray(e) && typeof e[0] === "string" && Array.isArray(e[1]?.issues)) this.known.set(e[0], e[1]);
      }
      return true;
    });
  }

  normalize(source: SourceRule, builtin: boolean): NormalizeResult {
    if (!this.file) return normalizeRule(source, { builtin });
    // a hash: the rule's JSON is as long as the rule, and a store of 200 rules was mostly its keys
    const key = hash("sha256", JSON.stringify([builtin, source]), "base64url");
    const stored = this.known.get(key);
    if (stored !== undefined && !this.used.has(key)) {
      this.used.set(key, stored);
      return stored;
    }
    const result = normalizeRule(source, { builtin });
    if (jsonFaithful(result)) {
      this.used.set(key, result);
      this.changed = true;
    }
    return result;
  }

  /** Writes the store when this load normalized a rule it did not hold, or no longer uses one it held. */
  save(): void {
    if (!this.file || (!this.changed && this.used.size === this.known.size)) return;
    writeJsonCache(this.file, { format: FORMAT, entries: [...this.used] });
  }
}
