import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { noteRead, noteReadError } from "./read-set.ts";

/**
 * One settings rule for every extension: each extension owns one key of pi's settings files (`ttsr`, `rulebook`,
 * `cacheTtl`) and declares only its schema. Files are read user first, then project; a project key overrides the
 * user's. **A bad key is said once (file, `section.key`, what is wrong) and ignored: the lower-precedence file's
 * value or the default applies, and every other key is kept.** In a list, a bad entry is said and dropped, the
 * other entries kept. A file that is not JSON, or a section that is not an object, is said once and skipped.
 */

/** A bad settings value: the file, the key (`ttsr.repeatGap`) and what is wrong with it. */
export interface SettingsIssue {
  file: string;
  key: string;
  message: string;
  /**
   * The whole file could not be read or parsed (a trailing comma). pi reports that itself and ignores the file, so
   * an extension inside pi adds nothing of its own (one mistake, one message); a CLI, where pi is not running, says it.
   */
  wholeFile?: true;
}

/** `<file>: <key>: <message>`, the one wording of a settings issue. */
export function formatSettingsIssue(issue: SettingsIssue): string {
  return `${issue.file}: ${issue.key}: ${issue.message}`;
}

/** pi's settings files in precedence order (later wins): `<agentDir>/settings.json`, `<cwd>/.pi/settings.json`. */
export function piSettingsFiles(cwd: string, agentDir: string): string[] {
  return [join(agentDir, "settings.json"), join(cwd, ".pi", "settings.json")];
}

/**
 * What the loader needs of a field schema: zod's `safeParse` (typed structurally, so the kit has no zod of its
 * own and each extension keeps its zod import lazy).
 */
export interface FieldSchema {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: unknown }
    | { success: false; error: { issues: readonly { message: string; path: readonly PropertyKey[] }[] } };
}

export type SettingsFields = Readonly<Record<string, FieldSchema>>;

/** One extension's settings: its key in the settings files, its defaults and its fields (loaded only when used). */
export interface SettingsSpec<T extends object> {
  section: string;
  defaults: T;
  /** The per-key schemas (e.g. a zod object's `.shape`); called only when a file has the section. */
  fields: () => SettingsFields | Promise<SettingsFields>;
}

export interface LoadedSettings<T extends object> {
  settings: T;
  issues: SettingsIssue[];
  /** The file each key's value came from (a key left at its default is absent): to say where a switch was set. */
  from: Partial<Record<keyof T, string>>;
  /** Every settings file that parsed as a JSON object, in precedence order (for keys another extension owns). */
  documents: SettingsDocument[];
}

type SettingsDocument = { file: string; json: Record<string, unknown> };

/** Reads the JSON objects of `files`; a missing file is skipped, an unreadable or non-JSON one is an issue. */
function readSettingsDocuments(
  files: readonly string[],
  section: string,
): { documents: SettingsDocument[]; issues: SettingsIssue[] } {
  const documents: SettingsDocument[] = [];
  const issues: SettingsIssue[] = [];
  for (const file of files) {
    noteRead(file);
    try {
      // most starts have no project settings file: missing is answered without an exception
      if (!statSync(file, { throwIfNoEntry: false })) continue;
      // pi strips a byte-order mark before parsing: a file pi reads fine must not be "not valid JSON" here.
      const json: unknown = JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, ""));
      if (isRecord(json)) documents.push({ file, json });
    } catch (error) {
      noteReadError(error);
      const { code, message } = error as NodeJS.ErrnoException;
      if (code === "ENOENT") continue;
      const what = error instanceof SyntaxError ? "settings file is not valid JSON" : "cannot read the file";
      issues.push({ file, key: section, message: `${what} (${message}); ignored`, wholeFile: true });
    }
  }
  return { documents, issues };
}

/**
 * Validates one raw section key by key under the rule above. Returns only the keys that are valid (to merge over
 * the lower-precedence values). Settings are data: `constructor` or `__proto__` are unknown keys, never members.
 */
export function parseSettingsSection(
  raw: unknown,
  file: string,
  section: string,
  fields: SettingsFields,
): { values: Record<string, unknown>; issues: SettingsIssue[] } {
  const values: Record<string, unknown> = {};
  const issues: SettingsIssue[] = [];
  if (raw === undefined) return { values, issues };
  if (!isRecord(raw)) {
    issues.push({ file, key: section, message: `must be an object, got ${describe(raw)}; ignored` });
    return { values, issues };
  }
  for (const [key, value] of Object.entries(raw)) {
    const name = `${section}.${key}`;
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (!field) {
      issues.push({ file, key: name, message: `unknown key (known: ${Object.keys(fields).join(", ")}); ignored` });
      continue;
    }
    let result = field.safeParse(value);
    if (!result.success && Array.isArray(value)) {
      // A list with bad entries: say each and keep the others, when the rest is a valid list.
      const bad = new Map<number, string>();
      for (const issue of result.error.issues) {
        const at = issue.path[0];
        if (typeof at === "number" && !bad.has(at)) bad.set(at, issue.message);
      }
      const kept = value.filter((_, i) => !bad.has(i));
      const retry = bad.size > 0 ? field.safeParse(kept) : result;
      if (retry.success) {
        for (const [i, message] of bad)
          issues.push({ file, key: `${name}[${i}]`, message: `${message} (got ${describe(value[i])}); ignored` });
      }
      result = retry;
    }
    if (result.success) values[key] = result.data;
    else {
      const first = result.error.issues[0];
      const at = first?.path.length ? `[${first.path.map(String).join("][")}]` : "";
      issues.push({
        file,
        key: `${name}${at}`,
        message: `${first?.message ?? "invalid value"} (got ${describe(value)}); ignored`,
      });
    }
  }
  return { values, issues };
}

/** Reads `spec.section` from `files` (see the rule above). Never throws. */
export async function loadSettings<T extends object>(
  spec: SettingsSpec<T>,
  files: readonly string[],
): Promise<LoadedSettings<T>> {
  const read = readSettingsDocuments(files, spec.section);
  // The schema is loaded only when there is something to validate: most sessions never pay for it.
  const fields = read.documents.some((d) => Object.hasOwn(d.json, spec.section)) ? await spec.fields() : {};
  return mergeSettings(spec, read, fields);
}

/** `loadSettings` for a caller that must stay synchronous (its `fields` returns the schema directly). */
export function loadSettingsSync<T extends object>(
  spec: Omit<SettingsSpec<T>, "fields"> & { fields: () => SettingsFields },
  files: readonly string[],
): LoadedSettings<T> {
  return mergeSettings(spec, readSettingsDocuments(files, spec.section), spec.fields());
}

function mergeSettings<T extends object>(
  spec: Pick<SettingsSpec<T>, "section" | "defaults">,
  read: { documents: SettingsDocument[]; issues: SettingsIssue[] },
  fields: SettingsFields,
): LoadedSettings<T> {
  const issues = [...read.issues];
  const settings: Record<string, unknown> = { ...(spec.defaults as Record<string, unknown>) };
  const from: Record<string, string> = {};
  for (const { file, json } of read.documents) {
    if (!Object.hasOwn(json, spec.section)) continue;
    const parsed = parseSettingsSection(json[spec.section], file, spec.section, fields);
    issues.push(...parsed.issues);
    for (const [key, value] of Object.entries(parsed.values)) {
      settings[key] = value;
      from[key] = file;
    }
  }
  return { settings: settings as T, issues, from: from as LoadedSettings<T>["from"], documents: read.documents };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Said (with the project file and the keys) when a project pi does not trust sets keys an extension reads. */
export const UNTRUSTED_PROJECT_MESSAGE =
  "ignored: pi does not trust this project (trust it with /trust, or --approve for one run)";

export interface PiSettingsOptions {
  /**
   * pi's project trust (`ctx.isProjectTrusted()` in a session). pi 1.6 loads no project settings in a project it
   * does not trust, and neither does an extension: a folder must not switch its rules off or widen what reaches the
   * prompt. Default `true` (a CLI or a library reads what it is pointed at).
   */
  projectTrusted?: boolean;
  /** Keys the extension reads from a settings file besides its section (`ttsr.disabledRules`), when set there. */
  alsoReads?: (json: Record<string, unknown>) => readonly string[];
}

/**
 * `loadSettings` over pi's user then project settings (`piSettingsFiles`), as every extension reads them. In a
 * project pi does not trust the project file is left out, and when it sets keys the extension reads (its section,
 * `alsoReads`), one issue names them with UNTRUSTED_PROJECT_MESSAGE. Never throws.
 */
export async function loadPiSettings<T extends object>(
  spec: SettingsSpec<T>,
  cwd: string,
  agentDir: string,
  options: PiSettingsOptions = {},
): Promise<LoadedSettings<T>> {
  const [userFile, projectFile] = piSettingsFiles(cwd, agentDir) as [string, string];
  if (options.projectTrusted ?? true) return loadSettings(spec, [userFile, projectFile]);
  const loaded = await loadSettings(spec, [userFile]);
  const project = readSettingsDocuments([projectFile], spec.section).documents[0]?.json ?? {};
  const keys = [
    ...(Object.hasOwn(project, spec.section) ? [spec.section] : []),
    ...(options.alsoReads?.(project) ?? []),
  ];
  if (keys.length === 0) return loaded;
  const ignored: SettingsIssue = { file: projectFile, key: keys.join(", "), message: UNTRUSTED_PROJECT_MESSAGE };
  return { ...loaded, issues: [...loaded.issues, ignored] };
}
