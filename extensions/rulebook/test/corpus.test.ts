import { execFileSync } from "node:child_process";
import { cpSync, readdirSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadProjectContextFiles } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bucketOf, bucketRules } from "../src/buckets/buckets.ts";
import { doctorReport } from "../src/cli/report.ts";
import { piContextFiles } from "../src/discovery/context-files.ts";
import { loadRules } from "../src/discovery/load.ts";
import { clearParseCache } from "../src/discovery/parse-cache.ts";
import type { RuleLoadResult } from "../src/rule.ts";
import { DEFAULT_SETTINGS } from "../src/settings/defaults.ts";
import type { RulebookSettings } from "../src/settings/schema.ts";
import { tempWorld, writeTree } from "../src/testing/tree.ts";

/**
 * One test per real-world rule file form. The corpus under test/fixtures/corpus is written for these
 * tests (shaped like files found in public repositories, not copied); dot-folders are stored as
 * `dot-<name>` so running pi in this repo never picks them up, and renamed when copied to a temp project.
 */
const CORPUS = new URL("./fixtures/corpus/", import.meta.url).pathname;

let world: Awaited<ReturnType<typeof tempWorld>>;
beforeEach(async () => {
  world = await tempWorld();
  clearParseCache();
});
afterEach(() => world.dispose());

function undot(dir: string): void {
  for (const name of readdirSync(dir)) {
    let path = join(dir, name);
    if (name.startsWith("dot-")) {
      const renamed = join(dir, `.${name.slice(4)}`);
      renameSync(path, renamed);
      path = renamed;
    }
    if (statSync(path).isDirectory()) undot(path);
  }
}

async function project(form: string, settings: Partial<RulebookSettings> = {}): Promise<RuleLoadResult> {
  cpSync(join(CORPUS, form), world.cwd, { recursive: true });
  undot(world.cwd);
  return loadRules({
    cwd: world.cwd,
    home: world.home,
    agentDir: world.agentDir,
    settings: { ...DEFAULT_SETTINGS, ...settings },
  });
}

const rule = (result: RuleLoadResult, name: string) => result.rules.find((r) => r.name === name);
const bucket = (result: RuleLoadResult, name: string) => {
  const buckets = bucketRules(result.rules, { ttsrActive: true });
  return bucketOf(buckets, rule(result, name)!);
};
const kinds = (result: RuleLoadResult) => result.warnings.map((w) => w.kind);

describe("Cursor's own frontmatter form", () => {
  it("globs: **/*.ts (unquoted) is read as Cursor reads it, without a warning", async () => {
    const result = await project("cursor-unquoted");
    expect(rule(result, "typescript")).toMatchObject({
      description: "TypeScript conventions for this repo",
      globs: ["**/*.ts"],
    });
    expect(result.warnings).toEqual([]);
  });

  it("globs: *.tsx, src/**/*.ts (comma list, no quotes) is two globs, without a warning", async () => {
    const result = await project("cursor-comma-list");
    expect(rule(result, "react")?.globs).toEqual(["*.tsx", "src/**/*.ts"]);
    expect(bucket(result, "react")).toBe("glob");
    // an empty `description:` is Cursor's "no description", not a dropped value
    expect(result.warnings).toEqual([]);
  });

  it("alwaysApply: true with globs is always in the prompt", async () => {
    const result = await project("cursor-always-globs");
    expect(rule(result, "scala-style")).toMatchObject({ alwaysApply: true, globs: ["**/*.scala"] });
    expect(bucket(result, "scala-style")).toBe("alwaysApply");
    expect(result.warnings).toEqual([]);
  });

  it("the line fallback keeps no quotes on quoted values and names only the lost line", async () => {
    const result = await project("cursor-fallback-quotes");
    expect(rule(result, "nextjs")).toMatchObject({
      description: "Cursor rules for Next.js App Router projects",
      globs: ["app/**"],
    });
    expect(result.warnings).toEqual([
      expect.objectContaining({
        kind: "frontmatter",
        message: expect.stringMatching(/which could not read line 4: " {2}priority: \[high"$/),
      }),
    ]);
    // no false advice about quotes on a file that has none around alwaysApply
    expect(result.warnings[0]!.message).not.toMatch(/without quotes/);
  });
});

describe("legacy single files are always-apply rules of their provider", () => {
  it.each([
    ["legacy-cursorrules", "cursorrules", "cursor", "FastAPI"],
    ["legacy-windsurfrules", "windsurfrules", "windsurf", "make lint"],
    ["windsurf-rules-file", "windsurf-rules", "windsurf", "imperative mood"],
    ["copilot-instructions", "copilot-instructions", "copilot", "fmt.Errorf"],
  ])("%s", async (form, name, provider, text) => {
    const result = await project(form);
    const r = rule(result, name);
    expect(r).toMatchObject({ alwaysApply: true, source: { provider, legacy: true } });
    expect(r?.content).toContain(text);
    expect(bucket(result, name)).toBe("alwaysApply");
    expect(result.warnings).toEqual([]);
  });
});

describe("pi's own context files", () => {
  it("doctor says pi loads AGENTS.md and skips the CLAUDE.md beside it, and offers the setting", async () => {
    const result = await project("agents-and-claude");
    const mine = result.contextFiles?.filter((f) => f.path.startsWith(world.cwd));
    expect(mine).toEqual([
      { path: join(world.cwd, "AGENTS.md"), loadedByPi: true },
      {
        path: join(world.cwd, "CLAUDE.md"),
        loadedByPi: false,
        note: expect.stringMatching(/pi loads only AGENTS\.md .* rulebook\.loadClaudeMdBesideAgentsMd: true/),
        skippedFor: "sibling",
      },
    ]);
    expect(result.rules).toEqual([]);
  });

  it("what pi 1.6 itself loads: AGENTS.override.md first, and a nested worktree's file over the main repository's", async () => {
    const main = join(world.home, "work");
    const tree = join(main, "feature");
    const cwd = join(tree, "pkg");
    await writeTree(main, { "AGENTS.md": "main repo", "CLAUDE.md": "main claude" });
    const git = (dir: string, ...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, stdio: "pipe" });
    git(main, "init", "-q");
    git(main, "add", "-A");
    git(main, "commit", "-q", "-m", "init");
    git(main, "worktree", "add", "-q", tree); // checks out the worktree's own AGENTS.md and CLAUDE.md
    await writeTree(cwd, { "AGENTS.override.md": "override", "AGENTS.md": "package agents" });
    await writeTree(world.agentDir, { "AGENTS.md": "user agents" });
    const mine = piContextFiles(cwd, world.agentDir).filter((f) => f.path.startsWith(world.root));
    // pi's own loader on the same folders: rulebook says pi loads exactly these
    const pis = loadProjectContextFiles({ cwd, agentDir: world.agentDir }).map((f) => f.path);
    expect(mine.filter((f) => f.loadedByPi).map((f) => f.path)).toEqual(pis);
    expect(mine.map((f) => [f.path.slice(world.root.length + 1), f.loadedByPi, f.skippedFor])).toEqual([
      ["home/.pi/agent/AGENTS.md", true, undefined],
      ["home/work/AGENTS.md", false, "worktree"],
      ["home/work/CLAUDE.md", false, "sibling"],
      ["home/work/feature/AGENTS.md", true, undefined],
      ["home/work/feature/CLAUDE.md", false, "sibling"],
      ["home/work/feature/pkg/AGENTS.override.md", true, undefined],
      ["home/work/feature/pkg/AGENTS.md", false, "sibling"],
    ]);
    expect(mine[1]!.note).toBe(
      `pi skips the main repository's AGENTS.md: cwd is in the linked worktree ${tree}, which has its own`,
    );
    // from the main repository itself (an ordinary repository), pi loads its AGENTS.md
    const fromMain = piContextFiles(main, world.agentDir)
      .filter((f) => f.loadedByPi)
      .map((f) => f.path);
    expect(fromMain).toEqual(loadProjectContextFiles({ cwd: main, agentDir: world.agentDir }).map((f) => f.path));
    expect(fromMain).toContain(join(main, "AGENTS.md"));
  });

  it("rulebook.loadClaudeMdBesideAgentsMd loads that CLAUDE.md as an always-apply rule (AGENTS.md stays pi's)", async () => {
    const result = await project("agents-and-claude", { loadClaudeMdBesideAgentsMd: true });
    expect(result.rules.map((r) => r.name)).toEqual(["CLAUDE.md"]);
    expect(rule(result, "CLAUDE.md")).toMatchObject({ alwaysApply: true, source: { provider: "claude" } });
    expect(result.contextFiles?.find((f) => f.path.endsWith("CLAUDE.md"))?.rule).toBe("CLAUDE.md");
  });
});

describe("Cline and Claude Code semantics", () => {
  it("Cline: a rule without paths applies always, with paths it is scoped", async () => {
    const result = await project("cline-no-paths");
    expect(bucket(result, "01-coding")).toBe("alwaysApply");
    expect(rule(result, "01-coding")?.description).toBe("General coding standards");
    expect(rule(result, "02-docs")).toMatchObject({ globs: ["docs/**"] });
    expect(bucket(result, "02-docs")).toBe("glob");
  });

  it("Claude Code: description + globs is not always-on", async () => {
    const result = await project("claude-description-globs");
    expect(rule(result, "api")).toMatchObject({ globs: ["src/api/**/*.ts"], description: "REST API design rules" });
    expect(rule(result, "api")?.alwaysApply).toBeUndefined();
    expect(bucket(result, "api")).toBe("rulebook");
  });

  it("Claude Code: a comma inside a paths element is not a separator", async () => {
    const result = await project("claude-paths-comma");
    expect(rule(result, "data")?.globs).toEqual(["src/**/*.{ts,tsx}", "fixtures/a,b.json"]);
  });

  it("Claude Code reads only .md in .claude/rules: other files are listed as skipped with the reason", async () => {
    const result = await project("claude-other-ext");
    expect(result.rules.map((r) => r.name)).toEqual(["style"]);
    expect(result.skipped.map((s) => [s.path.slice(world.cwd.length + 1), s.kind, s.reason])).toEqual([
      [".claude/rules/legacy.mdc", "not-a-rule", "not a rule file: Claude Code reads only *.md files in .claude/rules"],
      [".claude/rules/notes.txt", "not-a-rule", "not a rule file: Claude Code reads only *.md files in .claude/rules"],
    ]);
  });

  it("files in rule folders that are not rules (no .instructions.md suffix, no extension) are skipped with a reason", async () => {
    const result = await project("copilot-non-rules");
    expect(result.rules.map((r) => r.name)).toEqual(["testing"]);
    expect(result.skipped.map((s) => [s.path.slice(world.cwd.length + 1), s.kind])).toEqual([
      [".github/instructions/CODEOWNERS", "not-a-rule"],
      [".github/instructions/README.md", "not-a-rule"],
    ]);
    expect(result.skipped[0]!.reason).toMatch(/Copilot reads only \*\.instructions\.md/);
  });
});

describe("globs that can never match", () => {
  it("Windsurf extension lists (.js, .ts and [java]) become **/*.ext with a note", async () => {
    const result = await project("windsurf-extension-list");
    expect(rule(result, "js")?.globs).toEqual(["**/*.js", "**/*.ts"]);
    expect(rule(result, "java")?.globs).toEqual(["**/*.java"]);
    expect(kinds(result)).toEqual(["glob-normalized", "glob-normalized", "glob-normalized"]);
    expect(result.warnings.map((w) => w.message)).toContainEqual(
      expect.stringMatching(/glob "\.js" can never match a source file; read as "\*\*\/\*\.js"/),
    );
  });

  it("unclosed [ and { are reported by doctor with the file and the glob", async () => {
    const result = await project("unmatchable-globs");
    const report = doctorReport(result, DEFAULT_SETTINGS, { ttsrActive: true });
    expect(report.warnings.map((w) => [w.kind, w.key, w.path?.endsWith("broken.mdc")])).toEqual([
      ["glob-unmatchable", "globs", true],
      ["glob-unmatchable", "globs", true],
    ]);
    expect(report.warnings[0]!.message).toMatch(/"src\/\[abc" has an unclosed "\["/);
    expect(report.warnings[1]!.message).toMatch(/"src\/\{a,b" has an unclosed "\{"/);
  });

  it("combinatorial brace sets are dropped with a warning; a normal brace set stays", async () => {
    const result = await project("brace-bomb");
    expect(rule(result, "braces")?.globs).toBeUndefined();
    expect(rule(result, "fine")?.globs).toEqual(["src/**/*.{ts,tsx}"]);
    expect(result.warnings).toEqual([
      expect.objectContaining({ kind: "glob-combinatorial", message: expect.stringMatching(/more than 256 patterns/) }),
    ]);
  });
});

describe("one bad file disables only itself", () => {
  it("a billion-laughs .mdc is skipped with its path and reason; its sibling and other providers load", async () => {
    const started = performance.now();
    const result = await project("billion-laughs");
    expect(performance.now() - started).toBeLessThan(5000); // unbounded, it took 24 s and 1.7 GB
    expect(result.skipped).toEqual([
      expect.objectContaining({
        path: expect.stringMatching(/laughs\.mdc$/),
        kind: "limit",
        reason: expect.stringMatching(/more than 10000 values/),
      }),
    ]);
    expect(result.rules.map((r) => r.name).sort()).toEqual(["other", "sibling"]);
  });
});
