import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { type CliIo, EXIT, isInside, relativeInside, UsageError, writeJson } from "@pi-rails/agent-core/kit";
import ignore, { type Ignore } from "ignore";
import { TtsrManager } from "../manager/ttsr-manager.ts";
import type { PatternMode } from "../matcher/compile.ts";
import type { RuleScope, StreamSource } from "../rules/types.ts";
import { type CliRules, loadCliRules } from "./context.ts";
import { lineColumn } from "./io.ts";
import { fileTools, simulate, simulateTools } from "./simulate.ts";

export interface CommonFlags {
  json: boolean;
  cwd?: string;
  rule?: string[];
  source?: string;
  tool?: string;
  path?: string;
  file?: string;
}

function sourceOf(flags: CommonFlags, fallback: StreamSource): StreamSource {
  const s = flags.source ?? fallback;
  if (s !== "text" && s !== "thinking" && s !== "tool")
    throw new UsageError(`--source must be text, thinking or tool (got "${s}")`);
  return s;
}

async function rulesFor(io: CliIo, flags: CommonFlags): Promise<CliRules> {
  const rules = await loadCliRules(io, {
    ...(flags.cwd ? { cwd: flags.cwd } : {}),
    ...(flags.rule ? { ruleFiles: flags.rule } : {}),
  });
  if (flags.rule && rules.registry.rules.length === 0) {
    const why =
      rules.warnings.length > 0 ? rules.warnings.join("\n") : "the file has no condition (condition / trigger)";
    throw new UsageError(`no rule could be loaded from ${flags.rule.join(", ")}:\n${why}`);
  }
  return rules;
}

function printWarnings(io: CliIo, warnings: readonly string[]): void {
  for (const w of warnings) io.stderr(`warning: ${w}\n`);
}

/** Reads `--file`: a regular file only (a FIFO or a device would block or never end). */
async function readInputFile(io: CliIo, file: string): Promise<string> {
  const path = resolve(io.cwd, file);
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new UsageError(`cannot read --file ${file}: no such file`);
  if (!info.isFile()) {
    const kind = info.isDirectory() ? "a directory" : info.isFIFO() ? "a FIFO (named pipe)" : "not a regular file";
    throw new UsageError(`cannot read --file ${file}: it is ${kind}; pipe it on stdin instead`);
  }
  return readFile(path, "utf8").catch((error: Error) => {
    throw new UsageError(`cannot read --file ${file}: ${error.message}`);
  });
}

/** `ttsr test`: does this snippet trigger a rule? */
export async function testCommand(io: CliIo, args: string[], flags: CommonFlags): Promise<number> {
  let text: string | undefined;
  if (flags.file) {
    if (args.length > 0) throw new UsageError("give either a snippet or --file, not both");
    text = await readInputFile(io, flags.file);
  } else if (args.length > 0) text = args.join(" ");
  else text = await io.readStdin();
  if (text === undefined) throw new UsageError("give a snippet, --file <path>, or pipe text on stdin");
  // `--file x.ts` alone is the model writing that file: a write or an edit of that path.
  const inferFile = flags.file !== undefined && !flags.source && !flags.tool && !flags.path;
  const source = sourceOf(flags, flags.tool || flags.path || inferFile ? "tool" : "text");
  const rules = await rulesFor(io, flags);
  const input = { text, source, ...(flags.tool ? { tool: flags.tool } : {}) };
  let path = flags.path;
  if (inferFile && flags.file) path = relative(rules.cwd, resolve(io.cwd, flags.file)).replaceAll("\\", "/");
  const simulated = { ...input, ...(path ? { path } : {}) };
  const hits =
    source === "tool" && !flags.tool ? simulateTools(rules, simulated, fileTools(rules)) : simulate(rules, simulated);
  const located = hits.map((h) => ({ ...h, ...lineColumn(text, Math.max(0, h.end - 1)) }));
  const as =
    source === "tool" ? `tool ${flags.tool ?? fileTools(rules).join("/")}${path ? ` of ${path}` : ""}` : source;
  if (flags.json) {
    const where = path ? { path } : {};
    writeJson(io.stdout, {
      source,
      ...where,
      enabled: rules.settings.enabled,
      matches: located,
      warnings: rules.warnings,
    });
  } else {
    printWarnings(io, rules.warnings);
    // A session would not watch the rules: said once, the check still runs (it is what the rules would do).
    if (!rules.settings.enabled)
      io.stderr("note: ttsr.enabled is false in the pi settings: a session would not watch these rules\n");
    if (located.length === 0) io.stdout(`no rule matched (${rules.registry.rules.length} rules, source ${as})\n`);
    for (const h of located) {
      const via = h.tool ? `, ${h.tool}` : "";
      io.stdout(`MATCH ${h.rule} (${h.delivery}${via}) at ${h.line}:${h.column}  ${h.file}\n`);
    }
  }
  return located.length > 0 ? EXIT.refused : EXIT.ok;
}

/** `ttsr list`: the rules a session here would watch, and why others would not load. */
export async function listCommand(io: CliIo, flags: CommonFlags): Promise<number> {
  const rules = await rulesFor(io, flags);
  const rows = rules.registry.rules.map((r) => ({
    name: r.rule.name,
    file: r.rule.path,
    provider: r.rule.origin.provider,
    format: r.rule.format,
    conditionKey: r.rule.conditionKey,
    conditions: r.rule.conditions.map((c) => `/${c.source}/${c.flags}`),
    engines: r.patterns.map((id) => rules.registry.patternSet.patterns[id]!.mode),
    window: r.rule.window,
    scope: scopeText(r.rule.scope),
    ...(r.rule.globs ? { globs: r.rule.globs } : {}),
    interrupt: r.rule.interrupt,
    ...(r.rule.maxFirings !== undefined ? { maxFirings: r.rule.maxFirings } : {}),
    ...(r.rule.cooldown !== undefined ? { cooldown: r.rule.cooldown } : {}),
    ...(r.rule.interruptMode !== undefined ? { interruptMode: r.rule.interruptMode } : {}),
    ...(r.rule.unknownKeys ? { unknownKeys: r.rule.unknownKeys } : {}),
  }));
  const skipped = [...rules.skipped, ...rules.dropped];
  if (flags.json) {
    const { settings, warnings } = rules;
    writeJson(io.stdout, { enabled: settings.enabled, settings, rules: rows, skipped, warnings });
    return EXIT.ok;
  }
  if (!rules.settings.enabled) io.stdout("ttsr.enabled is false: a session would not watch these rules\n");
  io.stdout(`${rows.length} rule${rows.length === 1 ? "" : "s"}\n`);
  for (const r of rows) {
    io.stdout(`\n${r.name}  (${originText(r.provider)})  ${r.file}\n`);
    // the key the file used (`condition`, `trigger`...), and how each condition is matched, in words
    io.stdout(
      `  ${r.conditionKey}: ${r.conditions.join("  ")}  (${[...new Set(r.engines.map(engineText))].join("; ")})\n`,
    );
    io.stdout(`  window: ${r.window}  scope: ${r.scope}${r.globs ? `  globs: ${r.globs.join(", ")}` : ""}\n`);
    const extra = [
      !r.interrupt ? "never interrupts" : r.interruptMode ? `interruptMode ${r.interruptMode}` : "interrupts",
      r.maxFirings !== undefined ? `maxFirings ${r.maxFirings}` : "",
      r.cooldown !== undefined ? `cooldown ${r.cooldown}s` : "",
    ].filter(Boolean);
    io.stdout(`  ${extra.join(", ")}\n`);
    if (r.unknownKeys) io.stdout(`  unknown keys (ignored): ${r.unknownKeys.join(", ")}\n`);
  }
  if (skipped.length > 0) io.stdout(`\nnot loaded:\n`);
  for (const s of skipped) io.stdout(`  ${s.name} (${s.path}): ${s.reason}\n`);
  // a rule listed as not loaded, with its reason, is not warned about again
  const warnings = rules.otherWarnings;
  if (warnings.length > 0) io.stdout(`\nwarnings:\n${warnings.map((w) => `  ${w}\n`).join("")}`);
  return EXIT.ok;
}

/** Where a rule came from, as a user would say it (`ttsr list --json` keeps rulebook's provider id). */
export function originText(provider: string): string {
  const names: Record<string, string> = {
    native: "pi rule",
    extra: "rule from rulebook.extraDirs",
    cursor: "Cursor rule",
    windsurf: "Windsurf rule",
    claude: "Claude Code rule",
    cline: "Cline rule",
    copilot: "Copilot instructions",
    "pi-ttsr-builtin": "shipped with pi-ttsr",
    file: "rule file given with --rule",
  };
  return names[provider] ?? `${provider} rule`;
}

/** How a condition is matched on the stream (the README's "How a condition is matched"); JSON keeps the mode. */
export function engineText(mode: PatternMode): string {
  switch (mode) {
    case "dfa":
      return "exact, linear time";
    case "dfa-verify":
      return "linear-time prefilter, regex confirms";
    case "all-of":
      return "each lookahead part on its own";
    case "native":
      return "regex on a bounded window, time-budgeted";
    case "chunk":
      return "regex on each chunk";
  }
}

function scopeText(scope: RuleScope): string {
  const parts: string[] = [];
  if (scope.text) parts.push("text");
  if (scope.thinking) parts.push("thinking");
  for (const t of scope.tools) parts.push(t.name ? `tool:${t.name}${t.glob ? `(${t.glob})` : ""}` : "tool");
  return parts.join(", ");
}

/** Files over this size are skipped by `scan` (generated or vendored, not something a model writes). */
const MAX_SCAN_BYTES = 2 * 1024 * 1024;

type Finding = { file: string; rule: string; ruleFile: string; delivery: string; line: number; column: number };

/** `ttsr scan <dir>`: run the rules over a codebase like a linter, as if the model wrote each file. */
export async function scanCommand(io: CliIo, args: string[], flags: CommonFlags): Promise<number> {
  if (args.length > 1) throw new UsageError("scan takes one directory");
  const root = resolve(io.cwd, args[0] ?? ".");
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`not a directory: ${args[0] ?? "."}`);
  const source = sourceOf(flags, "tool");
  // Rules of the project being scanned: the current one when the folder is inside it, else the folder itself.
  const rules = await rulesFor(io, { ...flags, cwd: flags.cwd ?? (isInside(io.cwd, root) ? io.cwd : root) });
  if (!rules.settings.enabled) {
    // A project that switched TTSR off has no findings to report: say so, and why, instead of linting anyway.
    const reason = `ttsr.enabled is false in ${rules.enabledFrom ?? "the pi settings"}: a session here watches no rule, so nothing was scanned`;
    if (flags.json) {
      writeJson(io.stdout, {
        root,
        files: 0,
        enabled: false,
        scanned: false,
        reason,
        findings: [],
        warnings: rules.warnings,
      });
    } else {
      printWarnings(io, rules.warnings);
      io.stdout(`${reason}\n`);
    }
    return EXIT.ok;
  }
  const manager = new TtsrManager(rules.registry, { settings: { ...rules.settings, enabled: true }, cwd: rules.cwd });
  const tools = flags.tool ? [flags.tool] : fileTools(rules);
  const findings: Finding[] = [];
  let files = 0;
  for await (const file of walk(root, await ancestorIgnores(rules.cwd, root))) {
    const buffer = await readFile(file).catch(() => undefined);
    if (!buffer || buffer.length > MAX_SCAN_BYTES || buffer.includes(0)) continue;
    files++;
    const text = buffer.toString("utf8");
    const rel = relative(rules.cwd, file).replaceAll("\\", "/");
    const hits =
      source === "tool"
        ? simulateTools(rules, { text, source, path: rel }, tools, manager)
        : simulate(rules, { text, source }, manager);
    for (const h of hits) {
      const at = lineColumn(text, Math.max(0, h.end - 1));
      findings.push({ file: rel, rule: h.rule, ruleFile: h.file, delivery: h.delivery, ...at });
    }
  }
  findings.sort((a, b) => (a.file === b.file ? a.line - b.line || a.column - b.column : a.file < b.file ? -1 : 1));
  if (flags.json) {
    writeJson(io.stdout, {
      root,
      files,
      enabled: rules.settings.enabled,
      scanned: true,
      findings,
      warnings: rules.warnings,
    });
  } else {
    printWarnings(io, rules.warnings);
    for (const f of findings) io.stdout(`${f.file}:${f.line}:${f.column}  ${f.rule} (${f.delivery})\n`);
    io.stdout(`${scanSummary(findings, files, rules.registry.rules.length)}\n`);
  }
  return findings.length > 0 ? EXIT.refused : EXIT.ok;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** `2 findings in 1 file (7 files scanned, 5 rules)`: files with findings, apart from the files read. */
export function scanSummary(findings: readonly { file: string }[], scanned: number, rules: number): string {
  const withFindings = new Set(findings.map((f) => f.file)).size;
  const where = findings.length > 0 ? ` in ${plural(withFindings, "file")}` : "";
  return `${plural(findings.length, "finding")}${where} (${plural(scanned, "file")} scanned, ${plural(rules, "rule")})`;
}

type IgnoreRules = Array<{ base: string; ig: Ignore }>;

/** The rules of `dir`'s own .gitignore, if it has one. */
async function gitignoreOf(dir: string): Promise<IgnoreRules> {
  const text = await readFile(join(dir, ".gitignore"), "utf8").catch(() => undefined);
  return text === undefined ? [] : [{ base: dir, ig: ignore().add(text) }];
}

/**
 * The .gitignore files of the folders from the project root down to (not including) the scanned folder, so
 * scanning a sub-folder skips what the project ignores. Empty when the folder is not inside the project.
 */
async function ancestorIgnores(project: string, root: string): Promise<IgnoreRules> {
  const rel = relativeInside(project, root);
  if (!rel) return [];
  const out: IgnoreRules = [];
  let dir = project;
  for (const part of ["", ...rel.split(sep).slice(0, -1)]) {
    dir = part ? join(dir, part) : dir;
    out.push(...(await gitignoreOf(dir)));
  }
  return out;
}

/** Files under `root`, honoring .gitignore files at every level (and `inherited` ones above); `.git` is skipped. */
async function* walk(root: string, inherited: IgnoreRules = []): AsyncGenerator<string> {
  const stack: Array<{ dir: string; rules: IgnoreRules }> = [{ dir: root, rules: inherited }];
  while (stack.length > 0) {
    const { dir, rules } = stack.pop()!;
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    const here = [...rules, ...(await gitignoreOf(dir))];
    const ignored = (path: string, isDir: boolean) =>
      here.some(({ base, ig }) => {
        const rel = relative(base, path).replaceAll("\\", "/");
        return rel !== "" && ig.ignores(isDir ? `${rel}/` : rel);
      });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? 1 : -1))) {
      const path = join(dir, entry.name);
      if (entry.name === ".git") continue;
      if (entry.isDirectory()) {
        if (!ignored(path, true)) stack.push({ dir: path, rules: here });
      } else if (entry.isFile() && !ignored(path, false)) yield path;
    }
  }
}
