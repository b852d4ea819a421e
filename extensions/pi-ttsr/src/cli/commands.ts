import { readdir, readFile, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import ignore, { type Ignore } from "ignore";
import { TtsrManager } from "../manager/ttsr-manager.ts";
import type { StreamSource } from "../rules/types.ts";
import { type CliRules, loadCliRules } from "./context.ts";
import { type CliIo, EXIT_MATCH, EXIT_NO_MATCH, EXIT_USAGE, lineColumn, UsageError } from "./io.ts";
import { simulate } from "./simulate.ts";

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

/** `ttsr test`: does this snippet trigger a rule? */
export async function testCommand(io: CliIo, args: string[], flags: CommonFlags): Promise<number> {
  let text: string | undefined;
  if (flags.file)
    text = await readFile(resolve(io.cwd, flags.file), "utf8").catch(() => {
      throw new UsageError(`cannot read --file ${flags.file}`);
    });
  else if (args.length > 0) text = args.join(" ");
  else text = await io.readStdin();
  if (text === undefined) throw new UsageError("give a snippet, --file <path>, or pipe text on stdin");
  const source = sourceOf(flags, flags.tool || flags.path ? "tool" : "text");
  const rules = await rulesFor(io, flags);
  const hits = simulate(rules, {
    text,
    source,
    ...(flags.tool ? { tool: flags.tool } : {}),
    ...(flags.path ? { path: flags.path } : {}),
  });
  const located = hits.map((h) => ({ ...h, ...lineColumn(text, Math.max(0, h.end - 1)) }));
  if (flags.json) {
    io.stdout(`${JSON.stringify({ source, matches: located, warnings: rules.warnings }, null, 2)}\n`);
  } else {
    printWarnings(io, rules.warnings);
    if (located.length === 0) io.stdout(`no rule matched (${rules.registry.rules.length} rules, source ${source})\n`);
    for (const h of located) io.stdout(`MATCH ${h.rule} (${h.delivery}) at ${h.line}:${h.column}  ${h.file}\n`);
  }
  return located.length > 0 ? EXIT_MATCH : EXIT_NO_MATCH;
}

/** `ttsr list`: the rules a session here would watch, and why others would not load. */
export async function listCommand(io: CliIo, flags: CommonFlags): Promise<number> {
  const rules = await rulesFor(io, flags);
  const rows = rules.registry.rules.map((r) => ({
    name: r.rule.name,
    file: r.rule.path,
    provider: r.rule.origin.provider,
    format: r.rule.format,
    conditions: r.rule.conditions.map((c) => `/${c.source}/${c.flags}`),
    engines: r.patterns.map((id) => rules.registry.patternSet.patterns[id]!.mode),
    window: r.rule.window,
    scope: scopeText(r.rule.scope),
    ...(r.rule.globs ? { globs: r.rule.globs } : {}),
    interrupt: r.rule.interrupt,
    ...(r.rule.maxFirings !== undefined ? { maxFirings: r.rule.maxFirings } : {}),
    ...(r.rule.cooldown !== undefined ? { cooldown: r.rule.cooldown } : {}),
  }));
  const skipped = [...rules.registry.skipped, ...rules.dropped];
  if (flags.json) {
    io.stdout(
      `${JSON.stringify({ enabled: rules.settings.enabled, settings: rules.settings, rules: rows, skipped, warnings: rules.warnings }, null, 2)}\n`,
    );
    return EXIT_NO_MATCH;
  }
  if (!rules.settings.enabled) io.stdout("ttsr.enabled is false: a session would not watch these rules\n");
  io.stdout(`${rows.length} rule${rows.length === 1 ? "" : "s"}\n`);
  for (const r of rows) {
    io.stdout(`\n${r.name}  [${r.format}, ${r.provider}]  ${r.file}\n`);
    io.stdout(`  conditions: ${r.conditions.join("  ")}  (${r.engines.join(", ")})\n`);
    io.stdout(`  window: ${r.window}  scope: ${r.scope}${r.globs ? `  globs: ${r.globs.join(", ")}` : ""}\n`);
    const extra = [
      r.interrupt ? "interrupts" : "never interrupts",
      r.maxFirings !== undefined ? `maxFirings ${r.maxFirings}` : "",
      r.cooldown !== undefined ? `cooldown ${r.cooldown}s` : "",
    ].filter(Boolean);
    io.stdout(`  ${extra.join(", ")}\n`);
  }
  if (skipped.length > 0) io.stdout(`\nnot loaded:\n`);
  for (const s of skipped) io.stdout(`  ${s.name} (${s.path}): ${s.reason}\n`);
  if (rules.warnings.length > 0) io.stdout(`\nwarnings:\n${rules.warnings.map((w) => `  ${w}\n`).join("")}`);
  return EXIT_NO_MATCH;
}

function scopeText(scope: {
  text: boolean;
  thinking: boolean;
  tools: Array<{ name?: string; glob?: string }>;
}): string {
  const parts: string[] = [];
  if (scope.text) parts.push("text");
  if (scope.thinking) parts.push("thinking");
  for (const t of scope.tools) parts.push(t.name ? `tool:${t.name}${t.glob ? `(${t.glob})` : ""}` : "tool");
  return parts.join(", ");
}

/** Files over this size are skipped by `scan` (generated or vendored, not something a model writes). */
const MAX_SCAN_BYTES = 2 * 1024 * 1024;

/** `ttsr scan <dir>`: run the rules over a codebase like a linter, as if the model wrote each file. */
export async function scanCommand(io: CliIo, args: string[], flags: CommonFlags): Promise<number> {
  if (args.length > 1) throw new UsageError("scan takes one directory");
  const root = resolve(io.cwd, args[0] ?? ".");
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`not a directory: ${args[0] ?? "."}`);
  const source = sourceOf(flags, "tool");
  // Rules of the project being scanned: the current one when the folder is inside it, else the folder itself.
  const inside = !relative(io.cwd, root).startsWith("..") && !isAbsolute(relative(io.cwd, root));
  const rules = await rulesFor(io, { ...flags, cwd: flags.cwd ?? (inside ? io.cwd : root) });
  const manager = new TtsrManager(rules.registry, { settings: { ...rules.settings, enabled: true }, cwd: rules.cwd });
  const findings: Array<{
    file: string;
    rule: string;
    ruleFile: string;
    delivery: string;
    line: number;
    column: number;
  }> = [];
  let files = 0;
  for await (const file of walk(root)) {
    const buffer = await readFile(file).catch(() => undefined);
    if (!buffer || buffer.length > MAX_SCAN_BYTES || buffer.includes(0)) continue;
    files++;
    const text = buffer.toString("utf8");
    const rel = relative(rules.cwd, file).replaceAll("\\", "/");
    const hits = simulate(rules, { text, source, tool: flags.tool ?? "write", path: rel }, manager);
    for (const h of hits) {
      findings.push({
        file: rel,
        rule: h.rule,
        ruleFile: h.file,
        delivery: h.delivery,
        ...lineColumn(text, Math.max(0, h.end - 1)),
      });
    }
  }
  findings.sort((a, b) => (a.file === b.file ? a.line - b.line || a.column - b.column : a.file < b.file ? -1 : 1));
  if (flags.json) {
    io.stdout(`${JSON.stringify({ root, files, findings, warnings: rules.warnings }, null, 2)}\n`);
  } else {
    printWarnings(io, rules.warnings);
    for (const f of findings) io.stdout(`${f.file}:${f.line}:${f.column}  ${f.rule} (${f.delivery})\n`);
    io.stdout(
      `${findings.length} finding${findings.length === 1 ? "" : "s"} in ${files} files, ${rules.registry.rules.length} rules\n`,
    );
  }
  return findings.length > 0 ? EXIT_MATCH : EXIT_NO_MATCH;
}

/** Files under `root`, honoring .gitignore files at every level; `.git` is always skipped. */
async function* walk(root: string): AsyncGenerator<string> {
  const stack: Array<{ dir: string; rules: Array<{ base: string; ig: Ignore }> }> = [{ dir: root, rules: [] }];
  while (stack.length > 0) {
    const { dir, rules } = stack.pop()!;
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    const here = [...rules];
    const gitignore = await readFile(join(dir, ".gitignore"), "utf8").catch(() => undefined);
    if (gitignore !== undefined) here.push({ base: dir, ig: ignore().add(gitignore) });
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

export { EXIT_USAGE };
