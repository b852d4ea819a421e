import { basename, dirname, posix } from "node:path";
import { noteReadError, stripControl } from "@pi-rails/agent-core/kit";
import { checkGlob } from "../globs/check.ts";
import type { Rule, RuleSource, RuleWarning } from "../rule.ts";
import type { FieldContext } from "./fields.ts";
import { type Candidate, checkRootLink, compareNames, listRuleFiles, type Problem, statIfExists } from "./fs.ts";
import { readParsed } from "./parse-cache.ts";
import { type DiscoveryContext, emptyOutput, isUserRoot, linkScope, type ProviderOutput } from "./provider.ts";

/** A rule file as a provider sees it before reading: its name and where it sits. */
export interface RuleFileSpec {
  file: Candidate;
  name: string;
  scope: RuleSource["scope"];
  root: string;
  level?: number;
  /** Directory (relative to cwd, `/`-separated) that this rule's globs are relative to; "" for cwd. */
  globBase?: string;
  /** A legacy single-file format the tool always applies (`.cursorrules`, `copilot-instructions.md`...). */
  legacy?: boolean;
}

/** The typed fields a provider derives from frontmatter. */
export type RuleFields = Pick<Rule, "description" | "globs" | "alwaysApply" | "condition" | "manual">;

export type Normalizer = (fields: FieldContext, spec: RuleFileSpec) => RuleFields;

export interface ProviderInfo {
  id: string;
  priority: number;
}

/** Prefix globs of a nested rule folder so every glob is relative to cwd. */
export function rebaseGlob(glob: string, base: string): string {
  if (!base) return glob;
  const negated = glob.startsWith("!");
  const body = negated ? glob.slice(1) : glob;
  // A glob with a slash is anchored to its folder; a bare name matches at any depth below it.
  return (negated ? "!" : "") + (body.includes("/") ? posix.join(base, body) : posix.join(base, "**", body));
}

/**
 * Read, parse and normalize rule files for one provider, in the given order. Everything that goes
 * wrong is reported: unreadable files and empty bodies as skips, YAML fallbacks, dropped values,
 * oversized files and truncation as warnings naming the file.
 */
export async function collectRules(
  provider: ProviderInfo,
  specs: readonly RuleFileSpec[],
  problems: readonly Problem[],
  normalize: Normalizer,
  ctx: DiscoveryContext,
): Promise<ProviderOutput> {
  const out = emptyOutput();
  out.seen = specs.length + problems.length;
  for (const p of problems) {
    out.skipped.push({ path: p.path, provider: provider.id, reason: p.reason, ...(p.kind ? { kind: p.kind } : {}) });
  }
  // readParsed reads synchronously (see listRuleFiles): no more than one file is open at a time
  const results = await Promise.all(
    specs.map(async (spec) => {
      try {
        const read = await readParsed(spec.file.path, spec.file.stats);
        ctx.parsedPaths?.add(spec.file.path);
        return { spec, ...read };
      } catch (error) {
        noteReadError(error);
        return { spec, error };
      }
    }),
  );
  for (const result of results) {
    out.files++;
    // one bad file never takes its siblings or the provider down
    try {
      collectOne(provider, result, normalize, ctx, out);
    } catch (error) {
      out.skipped.push({
        path: result.spec.file.path,
        provider: provider.id,
        kind: "unreadable",
        reason: `could not be read as a rule: ${(error as Error).message}`,
      });
    }
  }
  return out;
}

type ReadResult =
  | ({ spec: RuleFileSpec } & Awaited<ReturnType<typeof readParsed>>)
  | { spec: RuleFileSpec; error: unknown };

function collectOne(
  provider: ProviderInfo,
  result: ReadResult,
  normalize: Normalizer,
  ctx: DiscoveryContext,
  out: ProviderOutput,
): void {
  const { spec } = result;
  const path = spec.file.path;
  const skip = (kind: string, reason: string): void => {
    out.skipped.push({ path, provider: provider.id, kind, reason });
  };
  if ("error" in result) {
    const code = (result.error as NodeJS.ErrnoException).code;
    skip("unreadable", `unreadable: ${code ?? ""} ${(result.error as Error).message}`.trim());
    return;
  }
  if (result.cached) out.cacheHits++;
  const { parsed } = result;
  if (parsed.binary) {
    skip("binary", "binary file (it has NUL bytes); a rule must be text");
    return;
  }
  if (parsed.refused) {
    skip("limit", parsed.refused.reason);
    return;
  }
  const warnings: RuleWarning[] = [];
  const warn = (kind: string, message: string, key?: string) =>
    warnings.push({ path, provider: provider.id, ...(key ? { key } : {}), message, kind });
  if (parsed.fallback?.lost?.length)
    warn("frontmatter", yamlFallbackMessage(parsed.fallback.error, parsed.fallback.lost));
  if (parsed.unclosed)
    warn("frontmatter", "frontmatter starts with --- but is never closed; the whole file is the rule body");
  if (parsed.cutAtBytes)
    warn("size", `file is ${parsed.cutAtBytes.size} bytes; only the first ${parsed.cutAtBytes.read} were read`);
  if (parsed.invalidUtf8) warn("encoding", "file is not valid UTF-8; unreadable bytes were replaced with U+FFFD");
  if (parsed.controlChars)
    warn("control-chars", `removed ${parsed.controlChars} control character(s) (ESC, BEL, ...) from the rule`);
  const fieldCtx: FieldContext = { data: parsed.data, path, provider: provider.id, warnings };
  const fields = normalize(fieldCtx, spec);
  if (spec.legacy) fields.alwaysApply = true;
  if (!parsed.body) {
    out.warnings.push(...warnings);
    skip("empty", parsed.hasFrontmatter ? "no content after the frontmatter" : "empty file");
    return;
  }
  let content = parsed.body;
  let truncated: Rule["truncated"];
  if (content.length > ctx.settings.maxRuleChars) {
    const keptChars = ctx.settings.maxRuleChars;
    truncated = { originalChars: content.length, keptChars };
    content = `${content.slice(0, keptChars)}\n\n[rulebook: this rule was truncated from ${parsed.body.length} to ${keptChars} characters (settings rulebook.maxRuleChars); the full text is in ${path}]`;
    warn("truncated", `rule has ${parsed.body.length} characters; truncated to ${keptChars} (rulebook.maxRuleChars)`);
  }
  const globs = checkGlobs(fields.globs, warn)?.map((g) => rebaseGlob(g, spec.globBase ?? ""));
  const name = stripControl(spec.name);
  if (name !== spec.name)
    warn("control-chars", `control characters removed from the rule name (${JSON.stringify(name)})`);
  const rule: Rule = {
    name,
    path,
    content,
    ...(fields.description !== undefined ? { description: fields.description } : {}),
    ...(globs !== undefined ? { globs } : {}),
    ...(fields.alwaysApply !== undefined ? { alwaysApply: fields.alwaysApply } : {}),
    ...(fields.condition !== undefined ? { condition: fields.condition } : {}),
    ...(fields.manual ? { manual: true } : {}),
    ...(truncated ? { truncated } : {}),
    source: {
      provider: provider.id,
      priority: provider.priority,
      scope: spec.scope,
      path,
      root: spec.root,
      ...(spec.level !== undefined ? { level: spec.level } : {}),
      mtimeMs: spec.file.stats.mtimeMs,
      ...(spec.legacy ? { legacy: true } : {}),
    },
    meta: { ...parsed.data },
  };
  out.warnings.push(...warnings);
  out.rules.push(rule);
}

/** Check every glob: normalise the obvious, drop what cannot work, report both. */
function checkGlobs(
  globs: readonly string[] | undefined,
  warn: (kind: string, message: string, key?: string) => void,
): string[] | undefined {
  if (!globs) return undefined;
  const out: string[] = [];
  for (const raw of globs) {
    const checked = checkGlob(raw);
    if (checked.issue) warn(checked.issue.kind, checked.issue.message, "globs");
    if (checked.glob !== undefined) out.push(checked.glob);
  }
  return out.length ? out : undefined;
}

/** Rule name from a path relative to its rules folder: extension(s) stripped, `/` kept for subfolders. */
function ruleName(relPath: string, suffix: RegExp): string {
  return relPath.replace(suffix, "");
}

/**
 * Sort files so that, within a folder, a preferred extension comes first for the same stem
 * (`style.mdc` before `style.md` for Cursor): the later one is then reported as shadowed.
 */
function sortByStem(files: Candidate[], suffix: RegExp, preferred: readonly string[]): Candidate[] {
  const stem = (relPath: string) => relPath.replace(suffix, "");
  const rank = (relPath: string) => {
    const i = preferred.indexOf(relPath.slice(stem(relPath).length));
    return i === -1 ? preferred.length : i;
  };
  return [...files].sort((a, b) => compareNames(stem(a.relPath), stem(b.relPath)) || rank(a.relPath) - rank(b.relPath));
}

/** One folder of rule files as a provider describes it. */
export interface RuleFolder {
  dir: string;
  scope: RuleSource["scope"];
  /** Which file names are rules; stripping it from the relative path gives the rule name. */
  suffix: RegExp;
  /** Extension preference when two files share a stem (the first wins, the other is shadowed). */
  preferred: readonly string[];
  recursive: boolean;
  /** Provider-specific additions to each file's spec (nested folders, levels). */
  decorate?: (spec: RuleFileSpec) => RuleFileSpec;
  /** Why a file in the folder is not a rule (listed by doctor as skipped); default: not reported. */
  reject?: (fileName: string) => string | undefined;
}

/** List, order, read and normalize one folder of rule files: the common path of every folder-based provider. */
export async function loadRuleFolder(
  provider: ProviderInfo,
  folder: RuleFolder,
  normalize: Normalizer,
  ctx: DiscoveryContext,
): Promise<ProviderOutput> {
  // Run from the home folder, `<cwd>/.claude/rules` is `~/.claude/rules`: the user scope reads it, not this one.
  if (folder.scope === "project" && isUserRoot(ctx, folder.dir)) return emptyOutput();
  const { specs, problems } = await folderSpecs(folder, ctx);
  const out = await collectRules(provider, specs, problems, normalize, ctx);
  out.searched.push(folder.dir);
  return out;
}

/** A folder's rule files as specs in rule order, and the files it refused with the reason. */
export async function folderSpecs(
  folder: RuleFolder,
  ctx: DiscoveryContext,
): Promise<{ specs: RuleFileSpec[]; problems: Problem[] }> {
  const links = linkScope(ctx, folder.scope);
  const listing = await listRuleFiles(folder.dir, {
    accept: (n) => folder.suffix.test(n),
    recursive: folder.recursive,
    ...(folder.reject ? { reject: folder.reject } : {}),
    ...(links ? { links } : {}),
  });
  const specs = sortByStem(listing.files, folder.suffix, folder.preferred).map((file) => {
    const spec: RuleFileSpec = {
      file,
      name: ruleName(file.relPath, folder.suffix),
      scope: folder.scope,
      root: folder.dir,
    };
    return folder.decorate ? folder.decorate(spec) : spec;
  });
  return { specs, problems: [...listing.problems, ...listing.ignored] };
}

/** Dotfiles (`.DS_Store`, editor swap files) in a rule folder are never worth a line in doctor. */
export function rejectUnless(description: string): (fileName: string) => string | undefined {
  return (fileName) => (fileName.startsWith(".") ? undefined : `not a rule file: ${description}`);
}

/**
 * A single rule file a provider reads by a fixed path (`.cursorrules`, `.clinerules`,
 * `copilot-instructions.md`...): its spec when it is a regular file allowed by the link policy,
 * a problem when it exists but cannot be used, nothing when it is absent.
 */
export async function singleFile(
  ctx: DiscoveryContext,
  path: string,
  spec: Omit<RuleFileSpec, "file" | "root">,
): Promise<{ spec?: RuleFileSpec; problem?: Problem }> {
  const stats = await statIfExists(path);
  if (!stats) return {};
  if (!stats.isFile()) return stats.isDirectory() ? {} : { problem: { path, reason: "not a regular file" } };
  const link = checkRootLink(path, linkScope(ctx, spec.scope));
  if (link.problem) return { problem: link.problem };
  return { spec: { ...spec, root: dirname(path), file: { path, relPath: basename(path), stats } } };
}

/** Fixed-path rule files (see `singleFile`) read as one output, in order; every path counts as searched. */
export async function collectSingleFiles(
  provider: ProviderInfo,
  files: readonly (Omit<RuleFileSpec, "file" | "root"> & { path: string })[],
  normalize: Normalizer,
  ctx: DiscoveryContext,
): Promise<ProviderOutput> {
  const found = await Promise.all(files.map(({ path, ...spec }) => singleFile(ctx, path, spec)));
  const specs = found.flatMap((f) => (f.spec ? [f.spec] : []));
  const problems = found.flatMap((f) => (f.problem ? [f.problem] : []));
  const out = await collectRules(provider, specs, problems, normalize, ctx);
  out.searched.push(...files.map((f) => f.path));
  return out;
}

/**
 * The warning for frontmatter YAML could not parse, read line by line instead: where YAML stopped and which lines
 * could not be read, both as lines of the file (`line 5, column 12: bad indentation...; could not read line 5: "..."`).
 */
export function yamlFallbackMessage(error: string, lost: readonly { line: number; text: string }[]): string {
  const at = / at line (\d+), column (\d+)$/.exec(error);
  const yaml = at ? `line ${at[1]}, column ${at[2]}: ${error.slice(0, at.index)}` : error;
  const shown = lost
    .slice(0, 3)
    .map((l) => `line ${l.line}: ${JSON.stringify(l.text.length > 60 ? `${l.text.slice(0, 57)}...` : l.text)}`);
  const more = lost.length > 3 ? `, and ${lost.length - 3} more` : "";
  const what = lost.length === 1 ? shown[0] : `${lost.length} lines (${shown.join(", ")}${more})`;
  return `frontmatter is not valid YAML (${yaml}); it was read line by line, which could not read ${what}`;
}
