import { execFileSync } from "node:child_process";
import { mkdir, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { bucketRules } from "../buckets/buckets.ts";
import { RuleSchema } from "../rule.ts";
import { DEFAULT_SETTINGS } from "../settings/defaults.ts";
import { tempWorld, writeTree } from "../testing/tree.ts";
import { loadRules } from "./load.ts";
import { clearParseCache, parseCacheStats } from "./parse-cache.ts";

let world: Awaited<ReturnType<typeof tempWorld>>;
beforeEach(async () => {
  world = await tempWorld();
  clearParseCache();
});
afterEach(() => world.dispose());

const load = (settings = DEFAULT_SETTINGS) =>
  loadRules({ cwd: world.cwd, home: world.home, agentDir: world.agentDir, settings });
const byName = (r: Awaited<ReturnType<typeof load>>) => new Map(r.rules.map((x) => [x.name, x]));

describe("loadRules: every provider layout", () => {
  beforeEach(async () => {
    await writeTree(world.cwd, {
      ".pi/rules/pi-style.md": "---\ndescription: pi style\nglobs: src/**/*.ts\n---\nUse pi style.",
      ".pi/rules/pi-ttsr.mdc": "---\ntrigger: console\\.log\n---\nNo console.log.",
      ".cursor/rules/cursor-always.mdc": "---\nalwaysApply: true\n---\nCursor always.",
      ".cursor/rules/frontend/react.mdc": "---\ndescription: React\nglobs: '*.tsx, {a,b}/*.ts'\n---\nReact rule.",
      "packages/api/.cursor/rules/api.mdc": "---\nglobs: '*.ts'\n---\nAPI rule.",
      ".windsurf/rules/ws-glob.md": "---\ntrigger: glob\nglobs: '**/*.py'\n---\nPython.",
      ".windsurf/rules/ws-manual.md": "---\ntrigger: manual\n---\nManual.",
      ".windsurf/rules/ws-model.md": "---\ntrigger: model_decision\ndescription: when testing\n---\nTesting.",
      ".windsurf/rules/ws-always.md": "---\ntrigger: always_on\n---\nWindsurf always.",
      ".claude/rules/claude-paths.md": "---\npaths:\n  - 'docs/**'\n---\nDocs.",
      ".claude/rules/sub/claude-plain.md": "Claude plain.",
      ".github/instructions/py.instructions.md": "---\napplyTo: '**/*.py,scripts/*.sh'\n---\nCopilot py.",
      ".github/instructions/all.instructions.md": "---\napplyTo: '**'\n---\nCopilot all.",
    });
    await writeTree(world.home, {
      ".pi/agent/rules/user-pi.md": "---\nalwaysApply: true\n---\nUser pi.",
      ".cursor/rules/user-cursor.mdc": "---\ndescription: user cursor\n---\nUser cursor.",
      ".codeium/windsurf/memories/global_rules.md": "Global windsurf.",
      ".claude/rules/user-claude.md": "User claude.",
      // .clinerules above cwd: found by walking up
      "work/.clinerules/10-late.md": "Ten.",
      "work/.clinerules/2-early.md": "---\npaths: 'lib/**'\n---\nTwo.",
    });
  });

  it("finds every provider, normalizes each key and keeps the source", async () => {
    const result = await load();
    const rules = byName(result);
    expect([...rules.keys()]).toEqual([
      "pi-style",
      "pi-ttsr",
      "user-pi",
      "cursor-always",
      "frontend/react",
      "packages/api/api",
      "user-cursor",
      "ws-always",
      "ws-glob",
      "ws-manual",
      "ws-model",
      "global_rules",
      "claude-paths",
      "sub/claude-plain",
      "user-claude",
      "2-early",
      "10-late",
      "all",
      "py",
    ]);
    expect(rules.get("pi-style")).toMatchObject({
      description: "pi style",
      globs: ["src/**/*.ts"],
      content: "Use pi style.",
      source: { provider: "native", priority: 100, scope: "project" },
    });
    expect(rules.get("pi-ttsr")?.condition).toEqual(["console\\.log"]);
    expect(rules.get("pi-ttsr")?.meta).toEqual({ trigger: "console\\.log" });
    expect(rules.get("user-pi")).toMatchObject({ alwaysApply: true, source: { scope: "user" } });
    expect(rules.get("frontend/react")?.globs).toEqual(["*.tsx", "{a,b}/*.ts"]);
    expect(rules.get("packages/api/api")).toMatchObject({ globs: ["packages/api/**/*.ts"], source: { level: 2 } });
    expect(rules.get("ws-glob")).toMatchObject({ globs: ["**/*.py"], source: { provider: "windsurf" } });
    expect(rules.get("ws-glob")?.condition).toBeUndefined();
    expect(rules.get("ws-manual")?.manual).toBe(true);
    expect(rules.get("ws-always")?.alwaysApply).toBe(true);
    expect(rules.get("global_rules")).toMatchObject({ alwaysApply: true, source: { scope: "user" } });
    expect(rules.get("claude-paths")?.globs).toEqual(["docs/**"]);
    expect(rules.get("sub/claude-plain")?.alwaysApply).toBe(true);
    expect(rules.get("2-early")).toMatchObject({ globs: ["lib/**"], source: { provider: "cline", level: 1 } });
    expect(rules.get("10-late")?.alwaysApply).toBe(true);
    expect(rules.get("py")?.globs).toEqual(["**/*.py", "scripts/*.sh"]);
    expect(rules.get("all")?.alwaysApply).toBe(true);
    expect(result.skipped).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it("every rule a provider builds fits RuleSchema (the contract loadRules no longer checks at run time)", async () => {
    const result = await load();
    expect(result.rules.length).toBeGreaterThan(15);
    for (const rule of [...result.rules, ...result.shadowed.map((s) => s.rule)]) {
      const valid = RuleSchema.safeParse(rule);
      expect(valid.success, `${rule.path}: ${valid.error?.message}`).toBe(true);
    }
  });

  it("puts each rule in one bucket", async () => {
    const b = bucketRules((await load()).rules, { ttsrActive: true });
    const names = (rules: { name: string }[]) => rules.map((r) => r.name);
    expect(names(b.ttsr)).toEqual(["pi-ttsr"]);
    expect(names(b.alwaysApply)).toEqual([
      "user-pi",
      "cursor-always",
      "ws-always",
      "global_rules",
      "sub/claude-plain",
      "user-claude",
      "10-late",
      "all",
    ]);
    expect(names(b.rulebook)).toEqual(["pi-style", "frontend/react", "user-cursor", "ws-model"]);
    expect(names(b.glob)).toEqual(["packages/api/api", "ws-glob", "claude-paths", "2-early", "py"]);
    expect(b.neither.map((n) => [n.rule.name, n.reason])).toEqual([["ws-manual", expect.stringMatching(/manual/)]]);
    expect(b.warnings).toEqual([]);
  });

  it("a single .clinerules file is one rule named clinerules", async () => {
    await writeTree(world.cwd, { ".clinerules": "Single file." });
    const rule = byName(await load()).get("clinerules");
    expect(rule).toMatchObject({ content: "Single file.", alwaysApply: true, source: { provider: "cline", level: 0 } });
  });
});

describe("loadRules: precedence", () => {
  it("priority first, then the documented provider order, then project before user; shadowed are kept", async () => {
    await writeTree(world.cwd, {
      ".pi/rules/style.md": "---\nalwaysApply: true\n---\nnative project",
      ".cursor/rules/style.mdc": "---\nalwaysApply: true\n---\ncursor",
      ".cursor/rules/shared.mdc": "---\nalwaysApply: true\n---\ncursor shared",
      ".cursor/rules/dup.md": "md twin",
      ".cursor/rules/dup.mdc": "---\nalwaysApply: true\n---\nmdc twin",
      ".windsurf/rules/shared.md": "---\ntrigger: always_on\n---\nwindsurf shared",
    });
    await writeTree(world.home, {
      ".pi/agent/rules/style.md": "---\nalwaysApply: true\n---\nnative user",
      ".cursor/rules/shared.mdc": "---\nalwaysApply: true\n---\ncursor user shared",
    });
    const result = await load();
    const rules = byName(result);
    expect(rules.get("style")?.content).toBe("native project");
    expect(rules.get("shared")?.content).toBe("cursor shared");
    expect(rules.get("dup")?.content).toBe("mdc twin");
    const shadowed = result.shadowed.map((s) => [s.rule.content, s.by.content]);
    expect(shadowed).toEqual([
      ["native user", "native project"],
      ["md twin", "mdc twin"],
      ["cursor", "native project"],
      ["cursor user shared", "cursor shared"],
      ["windsurf shared", "cursor shared"],
    ]);
  });

  it("is deterministic whatever order files were created in", async () => {
    for (const n of ["b", "10-z", "a", "2-y", "C"]) {
      await writeTree(world.cwd, { [`.pi/rules/${n}.md`]: `---\nalwaysApply: true\n---\n${n}` });
    }
    const first = (await load()).rules.map((r) => r.name);
    clearParseCache();
    expect((await load()).rules.map((r) => r.name)).toEqual(first);
    expect(first).toEqual(["2-y", "10-z", "a", "b", "C"]);
  });
});

describe("loadRules: broken files are reported, never silently dropped", () => {
  it("a Windsurf rule copied into .pi/rules keeps Windsurf's activation instead of becoming a stream regex", async () => {
    await writeTree(world.cwd, {
      ".pi/rules/tabs.md": "---\ntrigger: always_on\n---\nAlways use tabs.",
      ".pi/rules/sql.md": "---\ntrigger: model_decision\ndescription: When writing SQL\n---\nUse parameters.",
      ".pi/rules/py.md": "---\ntrigger: glob\nglobs: '**/*.py'\n---\nPython.",
      ".pi/rules/no-log.md": "---\ntrigger: console\\.log\n---\nNo console.log.",
    });
    const rules = byName(await load());
    expect(rules.get("tabs")).toMatchObject({ alwaysApply: true });
    expect(rules.get("tabs")?.condition).toBeUndefined();
    expect(rules.get("sql")?.condition).toBeUndefined();
    expect(rules.get("py")).toMatchObject({ globs: ["**/*.py"] });
    expect(rules.get("no-log")?.condition).toEqual(["console\\.log"]);
    const buckets = bucketRules((await load()).rules, { ttsrActive: true });
    expect(buckets.alwaysApply.map((rule) => rule.name)).toContain("tabs");
    expect(buckets.ttsr.map((rule) => rule.name)).toEqual(["no-log"]);
  });

  it("bad YAML falls back to lines; no warning when every line was read", async () => {
    await writeTree(world.cwd, {
      ".cursor/rules/bad.mdc": "---\ndescription: [unclosed\nalwaysApply: true\n---\nBody",
    });
    const result = await load();
    const rule = byName(result).get("bad");
    expect(rule?.description).toBe("[unclosed");
    // an unquoted true is a boolean in the fallback too: nothing lost, nothing to warn about
    expect(rule?.alwaysApply).toBe(true);
    expect(result.warnings).toEqual([]);
  });

  it("bad YAML that loses lines warns with the file and the lost lines", async () => {
    await writeTree(world.cwd, {
      ".cursor/rules/lossy.mdc": "---\ndescription: ok\n  nested: [oops\nglobs:\n\t- x\n---\nBody",
    });
    const result = await load();
    expect(result.warnings).toEqual([
      expect.objectContaining({
        kind: "frontmatter",
        // one line, named one way: the file's line 3, where YAML stopped and what could not be read
        message: expect.stringMatching(
          /^frontmatter is not valid YAML \(line 3, column \d+: [^)]+\); it was read line by line, which could not read line 3: " {2}nested: \[oops"$/,
        ),
      }),
    ]);
    expect(byName(result).get("lossy")).toMatchObject({ description: "ok", globs: ["x"] });
  });

  it('"true" as a string is dropped with a warning, and the rule lands in "neither" with a reason', async () => {
    await writeTree(world.cwd, { ".cursor/rules/quoted.mdc": '---\nalwaysApply: "true"\n---\nQuoted' });
    const result = await load();
    expect(result.warnings).toEqual([
      expect.objectContaining({
        key: "alwaysApply",
        provider: "cursor",
        message: expect.stringContaining('It is the string "true"'),
      }),
    ]);
    const b = bucketRules(result.rules, { ttsrActive: false });
    expect(b.neither.map((n) => n.rule.name)).toEqual(["quoted"]);
  });

  it("reports wrong types for globs, description and conditions", async () => {
    await writeTree(world.cwd, {
      ".pi/rules/types.md": "---\ndescription: 42\nglobs: [src/*.ts, 7]\ncondition: {a: 1}\n---\nBody",
    });
    const result = await load();
    expect(byName(result).get("types")).toMatchObject({ globs: ["src/*.ts"] });
    expect(result.warnings.map((w) => w.key)).toEqual(["description", "globs", "condition"]);
  });

  it("empty files and frontmatter-only files are skipped with a reason", async () => {
    await writeTree(world.cwd, { ".pi/rules/empty.md": "", ".pi/rules/only-fm.md": "---\ndescription: x\n---\n\n" });
    const result = await load();
    expect(result.rules).toEqual([]);
    expect(result.skipped.map((s) => [s.path.split("/").pop(), s.reason])).toEqual([
      ["empty.md", "empty file"],
      ["only-fm.md", "no content after the frontmatter"],
    ]);
  });

  it("symlink loops are reported and do not hang", async () => {
    const dir = join(world.cwd, ".cursor", "rules");
    await writeTree(dir, { "real.mdc": "---\nalwaysApply: true\n---\nReal" });
    await symlink(dir, join(dir, "loop"));
    await symlink(join(dir, "self.mdc"), join(dir, "self.mdc"));
    const result = await load();
    expect(result.rules.map((r) => r.name)).toEqual(["real"]);
    expect(result.skipped.map((s) => [s.path.slice(dir.length + 1), s.reason])).toEqual([
      ["loop", expect.stringMatching(/symlink loop/)],
      ["self.mdc", "symlink loop (ELOOP)"],
    ]);
  });

  it("unreadable entries (dangling symlink, FIFO) are skipped with a reason (as root, chmod 000 would not stop a read)", async () => {
    const dir = join(world.cwd, ".pi", "rules");
    await mkdir(dir, { recursive: true });
    await symlink(join(dir, "nowhere.md"), join(dir, "gone.md"));
    execFileSync("mkfifo", [join(dir, "pipe.md")]);
    await writeFile(join(dir, "ok.md"), "---\nalwaysApply: true\n---\nOK");
    const result = await load();
    expect(result.rules.map((r) => r.name)).toEqual(["ok"]);
    expect(result.skipped.map((s) => [s.path.slice(dir.length + 1), s.reason])).toEqual([
      ["gone.md", expect.stringMatching(/dangling symlink/)],
      ["pipe.md", "a FIFO, not a regular file"],
    ]);
  });

  it("huge files are read up to 1 MiB and truncated to maxRuleChars with a note", async () => {
    const big = "x".repeat(3 * 1024 * 1024);
    await writeTree(world.cwd, { ".pi/rules/huge.md": `---\nalwaysApply: true\n---\n${big}` });
    const result = await load({ ...DEFAULT_SETTINGS, maxRuleChars: 1000 });
    const rule = byName(result).get("huge")!;
    expect(rule.content.startsWith("x".repeat(1000) + "\n\n[rulebook: this rule was truncated")).toBe(true);
    expect(rule.truncated).toEqual({
      originalChars: 1024 * 1024 - "---\nalwaysApply: true\n---\n".length,
      keptChars: 1000,
    });
    expect(result.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/only the first 1048576 were read/),
      expect.stringMatching(/truncated to 1000/),
    ]);
  });
});

describe("loadRules: settings", () => {
  it("disabled rules and providers, extra dirs", async () => {
    await writeTree(world.cwd, {
      ".pi/rules/keep.md": "---\nalwaysApply: true\n---\nKeep",
      ".pi/rules/drop.md": "---\nalwaysApply: true\n---\nDrop",
      ".cursor/rules/c.mdc": "---\nalwaysApply: true\n---\nC",
      "team-rules/extra.md": "---\ndescription: extra\n---\nExtra",
    });
    const result = await load({
      ...DEFAULT_SETTINGS,
      disabledRules: ["drop"],
      disabledProviders: ["cursor"],
      extraDirs: ["team-rules"],
    });
    expect(result.rules.map((r) => `${r.source.provider}:${r.name}`)).toEqual(["native:keep", "extra:extra"]);
    expect(result.skipped).toEqual([expect.objectContaining({ reason: expect.stringMatching(/disabledRules/) })]);
    expect(result.providers.find((p) => p.id === "cursor")?.enabled).toBe(false);
  });

  it("reads pi's settings files when no settings are passed; bad keys are warnings naming file and key", async () => {
    await writeTree(world.cwd, {
      ".pi/rules/drop.md": "---\nalwaysApply: true\n---\nDrop",
      ".pi/settings.json": JSON.stringify({ rulebook: { disabledRules: ["drop"], bogus: 1 } }),
    });
    await writeTree(world.agentDir, { "settings.json": JSON.stringify({ rulebook: { maxRuleChars: "big" } }) });
    const result = await loadRules({ cwd: world.cwd, home: world.home, agentDir: world.agentDir });
    expect(result.rules).toEqual([]);
    expect(result.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/agent\/settings\.json: rulebook\.maxRuleChars: .*; ignored/),
      expect.stringMatching(/\.pi\/settings\.json: rulebook\.bogus: unknown key/),
    ]);
  });
});

describe("parse cache", () => {
  it("a second loadRules re-stats but does not re-read; a changed file is read again", async () => {
    await writeTree(world.cwd, {
      ".pi/rules/a.md": "---\nalwaysApply: true\n---\nA",
      ".pi/rules/b.md": "---\nalwaysApply: true\n---\nB",
    });
    const first = await load();
    expect(parseCacheStats().reads).toBe(2);
    const second = await load();
    expect(parseCacheStats()).toMatchObject({ reads: 2, hits: 2 });
    expect(second.stats.cacheHits).toBe(2);
    expect(second.rules).toEqual(first.rules);
    await writeFile(join(world.cwd, ".pi/rules/a.md"), "---\nalwaysApply: true\n---\nA changed");
    const later = new Date(Date.now() + 5000);
    await utimes(join(world.cwd, ".pi/rules/a.md"), later, later);
    const third = await load();
    expect(parseCacheStats()).toMatchObject({ reads: 3, hits: 3 });
    expect(third.rules[0]?.content).toBe("A changed");
  });
});

describe("parse cache across module instances", () => {
  it("a second copy of the module (as jiti loads one per extension) shares the cache on globalThis", async () => {
    await writeTree(world.cwd, { ".pi/rules/a.md": "---\nalwaysApply: true\n---\nA" });
    await load();
    expect(parseCacheStats().reads).toBe(1);
    vi.resetModules();
    const copy = await import("./load.ts");
    const copyCache = await import("./parse-cache.ts");
    expect(copy.loadRules).not.toBe(loadRules);
    const result = await copy.loadRules({
      cwd: world.cwd,
      home: world.home,
      agentDir: world.agentDir,
      settings: DEFAULT_SETTINGS,
    });
    expect(result.rules.map((r) => r.name)).toEqual(["a"]);
    expect(result.stats.cacheHits).toBe(1);
    expect(copyCache.parseCacheStats()).toMatchObject({ reads: 1, hits: 1 });
  });
});

describe("loadRules: the agent dir for a given home", () => {
  it("follows PI_CODING_AGENT_DIR, as pi does, also when a home is passed", async () => {
    const elsewhere = join(world.home, "agent-elsewhere");
    await writeTree(elsewhere, { "rules/from-env.md": "---\ndescription: env\n---\nFrom the env agent dir." });
    await writeTree(world.home, { ".pi/agent/rules/from-home.md": "---\ndescription: home\n---\nFrom ~/.pi/agent." });
    vi.stubEnv("PI_CODING_AGENT_DIR", elsewhere);
    try {
      const result = await loadRules({ cwd: world.cwd, home: world.home, settings: DEFAULT_SETTINGS });
      const names = result.rules.map((rule) => rule.name);
      expect(names).toContain("from-env");
      expect(names).not.toContain("from-home");
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
