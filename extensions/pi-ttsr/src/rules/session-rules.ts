import { createHash } from "node:crypto";
import { utimesSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  firstChangedRead,
  homeDir,
  jsonFaithful,
  type KnownFingerprint,
  knownFingerprints,
  noteRead,
  pruneToNewest,
  type ReadSet,
  readJsonCache,
  recordReads,
  rememberFingerprints,
  type SettingsIssue,
  settledReads,
  unchangedPaths,
  writeJsonCache,
} from "@pi-rails/agent-core/kit";
import { compileCacheFingerprints } from "../matcher/compile-cache.ts";
import { defaultCacheDir, readTtsrSettings } from "../settings/read.ts";
import type { TtsrSettings } from "../settings/schema.ts";
import { type LoadedRules, loadTtsrRules } from "./load.ts";

/** Where a session starts: what its settings and rules are read for. */
export interface SessionPlace {
  cwd: string;
  agentDir: string;
  /** pi's project trust (`ctx.isProjectTrusted()`). */
  projectTrusted: boolean;
  /** The user's home (user-level rule folders). Default: `HOME` of the environment. */
  home?: string;
}

/** What a session's start reads: pi-ttsr's settings (and what is wrong in them) and the rules they lead to. */
export interface SessionRules {
  settings: TtsrSettings;
  settingsIssues: SettingsIssue[];
  loaded: LoadedRules;
  /** Loading the rules threw (a bug): TTSR is off for the session, and this says why. */
  failed?: string;
  /** "hit": read from the start-up snapshot; "miss": read from the files (and kept when they were settled). */
  snapshot: "hit" | "miss" | "off";
  /** On a miss where a snapshot was kept: the first path it read that has changed since (why it was not used). */
  changed?: string;
}

export interface SessionRulesOptions {
  /** Where the snapshot is kept; `false`: nowhere. Default: pi-ttsr's cache dir (`PI_TTSR_CACHE_DIR`). */
  cacheDir?: string | false;
  /** The environment (`HOME`, the `PI_*` variables decide what is read). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The time the start begins, which decides which paths changed too recently to keep (tests). Default `Date.now()`. */
  now?: () => number;
}

/** Bump when what a snapshot holds changes shape or meaning. */
const FORMAT = 3;

/** Snapshots kept (one per place and environment; the least recently used go first). */
const KEPT_SNAPSHOTS = 64;

/** This module's own file: a rebuilt or reinstalled pi-ttsr never trusts what an older one kept. */
const OWN_CODE = fileURLToPath(import.meta.url);

/**
 * The session's settings and rules. A start reads the settings files, walks every tool's rule folders, parses and
 * normalizes each rule file; the next start in the same place usually finds all of that unchanged. So what a start
 * concluded is kept in one snapshot file with every path it read (files, folders listed, paths found missing), and
 * the next start uses it when one `lstat` per path shows nothing changed (kit `read-set`): a rule added, edited,
 * removed or relinked anywhere discovery looks, a settings edit, or another pi-ttsr means reading them again.
 * Paths changed in the last seconds are not trusted (they can change again within one timestamp tick): such a
 * start keeps nothing.
 */
export async function loadSessionRules(place: SessionPlace, options: SessionRulesOptions = {}): Promise<SessionRules> {
  const env = options.env ?? process.env;
  const cacheDir = options.cacheDir === undefined ? defaultCacheDir(env) : options.cacheDir || undefined;
  const at = { ...place, home: place.home ?? homeDir(env) };
  if (!cacheDir) return { ...(await readSessionRules(at)), snapshot: "off" };
  // a hash: the key holds environment values, which may be secrets (`PI_*_API_KEY`), and the file must not
  const key = createHash("sha256").update(snapshotKey(at, env)).digest("hex");
  const file = join(cacheDir, "startup", `${key.slice(0, 32)}.json`);
  let changed: string | undefined;
  const kept = readJsonCache(file, (data) => {
    const snapshot = data as Partial<Snapshot>;
    if (snapshot.format !== FORMAT || snapshot.key !== key || !snapshot.reads) return undefined;
    const fingerprints = Array.isArray(snapshot.fingerprints) ? snapshot.fingerprints : [];
    changed = firstChangedRead(snapshot.reads);
    if (changed !== undefined) {
      // a rule edited: the code fingerprints whose own files did not change still hold for the load below
      const reads = snapshot.reads;
      rememberFingerprints(fingerprints.filter((f) => Array.isArray(f?.reads) && unchangedPaths(reads, f.reads)));
      return undefined;
    }
    // the fingerprints it kept read only paths it read: unchanged too
    rememberFingerprints(fingerprints);
    return snapshot.rules;
  });
  if (kept) {
    // used: it counts as new for pruning (the oldest written go first)
    touch(file);
    return { ...kept, snapshot: "hit" };
  }
  const since = options.now?.() ?? Date.now();
  const recorded = await recordReads(async () => {
    noteRead(OWN_CODE);
    const rules = await readSessionRules(at);
    // the compile cache's keys, which the registry asks for next: computed here, their reads are the snapshot's too
    compileCacheFingerprints();
    return rules;
  });
  const { value } = recorded;
  // Kept only when what was read holds still (kit read-set) and JSON gives it back as it is (`cooldown: .inf`)
  const reads = value.failed === undefined && jsonFaithful(value) ? settledReads(recorded, since) : undefined;
  const noted = new Set(recorded.paths);
  const fingerprints = knownFingerprints().filter((f) => f.reads.every((path) => noted.has(path)));
  if (reads && writeJsonCache(file, { format: FORMAT, key, reads, rules: value, fingerprints } satisfies Snapshot)) {
    pruneToNewest(dirname(file), KEPT_SNAPSHOTS, (name) => name.endsWith(".json"));
  }
  return { ...value, snapshot: "miss", ...(changed === undefined ? {} : { changed }) };
}

/** Sets a file's times to now (never throws: a snapshot that stays old is only pruned sooner). */
function touch(file: string): void {
  const now = new Date();
  try {
    utimesSync(file, now, now);
  } catch {}
}

/** The snapshot file: what it was made for, every path read with its signature, and what was concluded. */
interface Snapshot {
  format: number;
  /** A hash of `snapshotKey`. */
  key: string;
  reads: ReadSet;
  rules: Omit<SessionRules, "snapshot">;
  /** The code fingerprints the load computed (all their files are among `reads`): kit `rememberFingerprints`. */
  fingerprints: KnownFingerprint[];
}

/**
 * Everything besides the files that decides what a start reads: the place, the home, pi's and pi-ttsr's env, this
 * code, and the regex engine (rulebook checks conditions with it).
 */
function snapshotKey(place: Required<SessionPlace>, env: NodeJS.ProcessEnv): string {
  const piEnv = Object.keys(env)
    .filter((name) => name.startsWith("PI_"))
    .sort()
    .map((name) => [name, env[name]]);
  const code = [OWN_CODE, process.versions.v8];
  return JSON.stringify([place.cwd, place.agentDir, place.projectTrusted, place.home, piEnv, code]);
}

/** The settings and rules, read from the files. */
async function readSessionRules(place: Required<SessionPlace>): Promise<Omit<SessionRules, "snapshot">> {
  const { cwd, agentDir, projectTrusted, home } = place;
  // pi 1.6 reads a project's settings only while it trusts the project; so do pi-ttsr and rulebook's discovery.
  const read = await readTtsrSettings(cwd, agentDir, { projectTrusted });
  const { settings } = read;
  let loaded: LoadedRules = { rules: [], issues: [], dropped: [], skipped: [] };
  let failed: string | undefined;
  if (settings.enabled) {
    try {
      loaded = await loadTtsrRules({ cwd, agentDir, settings, projectTrusted, home });
    } catch (error) {
      failed = (error as Error).message;
    }
  }
  return { settings, settingsIssues: read.issues, loaded, ...(failed === undefined ? {} : { failed }) };
}
