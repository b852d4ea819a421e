import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRules } from "../src/discovery/load.ts";
import { clearParseCache, parseCacheStats } from "../src/discovery/parse-cache.ts";
import type { RuleLoadResult } from "../src/rule.ts";
import { tempWorld, writeTree } from "../src/testing/tree.ts";

/**
 * Every path through the parse store (rulebook's cache of parsed rule files across sessions): each must give what
 * discovery without any cache gives. `clearParseCache()` stands for a new process (the in-memory cache is gone,
 * the store on disk stays); the uncached load runs with no store and an empty in-memory cache.
 */

let world: Awaited<ReturnType<typeof tempWorld>>;
let store: string;
beforeEach(async () => {
  world = await tempWorld();
  store = join(world.root, "store", "project.json");
  clearParseCache();
});
afterEach(() => world.dispose());

const opts = () => ({ cwd: world.cwd, home: world.home, agentDir: world.agentDir });
/** What a load yields, without its timing and cache counters. */
const outcome = ({ stats: _stats, ...rest }: RuleLoadResult) => rest;

/** A new session served by the store: how many files it parsed, and what it found. */
async function session() {
  clearParseCache();
  const result = await loadRules({ ...opts(), parseStore: store });
  return { reads: parseCacheStats().reads, hits: parseCacheStats().hits, result: outcome(result) };
}

/** The same discovery with no cache at all. */
async function uncached() {
  clearParseCache();
  const result = outcome(await loadRules({ ...opts(), parseStore: false }));
  clearParseCache();
  return result;
}

const rule = (name: string) => join(world.cwd, ".pi/rules", `${name}.md`);
const names = (r: Awaited<ReturnType<typeof session>>) => r.result.rules.map((x) => x.name).sort();
const storedPaths = (): string[] =>
  JSON.parse(readFileSync(store, "utf8"))
    .entries.map((e: { path: string }) => e.path)
    .sort();

describe("parse store: each way a rule file changes between sessions", () => {
  beforeEach(async () => {
    await writeTree(world.cwd, {
      ".pi/rules/a.md": "---\ndescription: rule a\nglobs: src/**/*.ts\n---\nAAAA",
      ".pi/rules/b.md": "---\ndescription: rule b\nglobs: lib/**/*.ts\n---\nBBBB",
      ".pi/rules/c.md": "---\ndescription: rule c\nalwaysApply: true\n---\nCCCC",
    });
    expect((await session()).reads).toBe(3); // fills the store
  });

  it("no change: nothing is parsed", async () => {
    const s = await session();
    expect(s).toMatchObject({ reads: 0, hits: 3 });
    expect(s.result).toEqual(await uncached());
  });

  it("an edit of the same size with a new mtime is parsed again, alone", async () => {
    const before = statSync(rule("a"));
    writeFileSync(rule("a"), "---\ndescription: rule a\nglobs: app/**/*.ts\n---\nZZZZ");
    expect(statSync(rule("a")).size).toBe(before.size);
    utimesSync(rule("a"), before.atime, new Date(before.mtimeMs + 10_000));
    const s = await session();
    expect(s).toMatchObject({ reads: 1, hits: 2 });
    expect(s.result.rules.find((r) => r.name === "a")).toMatchObject({ globs: ["app/**/*.ts"], content: "ZZZZ" });
    expect(s.result).toEqual(await uncached());
  });

  it("an added file is parsed, alone, and kept", async () => {
    writeFileSync(rule("d"), "---\ndescription: rule d\n---\nDDDD");
    const s = await session();
    expect(s).toMatchObject({ reads: 1, hits: 3 });
    expect(names(s)).toEqual(["a", "b", "c", "d"]);
    expect(s.result).toEqual(await uncached());
    expect(storedPaths()).toHaveLength(4);
    expect((await session()).reads).toBe(0);
  });

  it("a removed file is gone from the rules and from the store", async () => {
    rmSync(rule("b"));
    const s = await session();
    expect(s).toMatchObject({ reads: 0, hits: 2 });
    expect(names(s)).toEqual(["a", "c"]);
    expect(s.result).toEqual(await uncached());
    expect(storedPaths()).toEqual([rule("a"), rule("c")].sort());
  });

  it("a renamed file is a new rule by its new name; renamed over another, it replaces that one's parse", async () => {
    renameSync(rule("a"), rule("x"));
    let s = await session();
    expect(names(s)).toEqual(["b", "c", "x"]);
    expect(s.result.rules.find((r) => r.name === "x")?.content).toBe("AAAA");
    expect(s.result).toEqual(await uncached());
    // b.md over c.md: same path as a stored entry, another file (inode, ctime)
    renameSync(rule("b"), rule("c"));
    s = await session();
    expect(names(s)).toEqual(["c", "x"]);
    expect(s.result.rules.find((r) => r.name === "c")).toMatchObject({ content: "BBBB", globs: ["lib/**/*.ts"] });
    expect(s.result).toEqual(await uncached());
  });

  it("a corrupt store (torn, not JSON, entries of the wrong shape or lying) is ignored: nothing is lost", async () => {
    const good = readFileSync(store, "utf8");
    const stored = JSON.parse(good);
    const corrupt = [
      good.slice(0, Math.floor(good.length / 2)), // torn write
      "\0\0\0 not json",
      JSON.stringify({ ...stored, entries: "none" }),
      JSON.stringify({ ...stored, entries: stored.entries.map((e: object) => ({ ...e, parsed: null })) }),
      JSON.stringify({ ...stored, entries: stored.entries.map((e: object) => ({ ...e, ino: "1" })) }),
      // an entry that claims another file's stat: the file's own stat does not match it, so it is parsed again
      JSON.stringify({
        ...stored,
        entries: stored.entries.map((e: { parsed: object }) => ({
          ...e,
          mtimeMs: 1,
          parsed: { ...e.parsed, body: "X" },
        })),
      }),
    ];
    const expected = await uncached();
    for (const text of corrupt) {
      writeFileSync(store, text);
      const s = await session();
      expect(s.reads).toBe(3);
      expect(s.result).toEqual(expected);
      expect(storedPaths()).toHaveLength(3); // rewritten whole
    }
  });
});

describe("parse store: the parser's code is part of its key", () => {
  it("a session after the parsing code changed parses every file again (fresh processes, a copy of the package)", async () => {
    await writeTree(world.cwd, {
      // a YAML list: parsing it loads js-yaml (flat frontmatter would not, flat-yaml.ts)
      ".pi/rules/a.md": "---\ndescription: rule a\nglobs:\n  - src/**/*.ts\n---\nAAAA",
      ".cursor/rules/b.mdc": "---\nglobs: *.tsx\n---\nBBBB",
    });
    // The built package, copied whole so its parsing source can be changed: the fingerprint hashes src/ found by
    // the package's name, from wherever the code runs.
    const pkg = join(world.root, "pkg");
    const real = fileURLToPath(new URL("..", import.meta.url));
    for (const part of ["dist", "src", "package.json"]) cpSync(join(real, part), join(pkg, part), { recursive: true });
    symlinkSync(join(real, "node_modules"), join(pkg, "node_modules"));
    const script = `
      import { createRequire } from "node:module";
      const { loadRules } = await import(${JSON.stringify(join(pkg, "dist/discovery/index.js"))});
      const r = await loadRules(${JSON.stringify({ ...opts(), parseStore: store })});
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({
        rules: r.rules.map((x) => [x.name, x.content, x.globs]),
        cacheHits: r.stats.cacheHits,
        yaml: loaded.some((p) => /(gray-matter|js-yaml).*\\.js$/.test(p)),
      }));`;
    const run = () =>
      JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
    const first = run();
    expect(first).toMatchObject({ cacheHits: 0, yaml: true });
    expect(run()).toEqual({ ...first, cacheHits: 2, yaml: false });
    appendFileSync(join(pkg, "src/frontmatter/parse.ts"), "\n// a change to the parser\n");
    expect(run()).toEqual(first); // every file parsed again, the same rules
    expect(run()).toEqual({ ...first, cacheHits: 2, yaml: false }); // and the store rewritten for the new code
  });
});

/** A small seeded PRNG (mulberry32): the generated trees are the same on every run, and a failure names its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Where each tool keeps its rules, relative to cwd (and the user's own folder, relative to home). */
const PLACES: Array<{ dir: string; ext: string; base?: "home" }> = [
  { dir: ".pi/rules", ext: ".md" },
  { dir: ".cursor/rules", ext: ".mdc" },
  { dir: ".cursor/rules/nested", ext: ".mdc" },
  { dir: "packages/web/.cursor/rules", ext: ".mdc" },
  { dir: ".windsurf/rules", ext: ".md" },
  { dir: ".claude/rules", ext: ".md" },
  { dir: ".clinerules", ext: ".md" },
  { dir: ".github/instructions", ext: ".instructions.md" },
  { dir: ".pi/agent/rules", ext: ".md", base: "home" },
  { dir: ".cursor/rules", ext: ".mdc", base: "home" },
];

/** Frontmatter lines as the tools write them, good and bad (Cursor's unquoted globs, a YAML error, a date...). */
const LINES = [
  "description: a rule",
  'description: "quoted: yes"',
  "description: a: b",
  "globs: *.tsx, src/**/*.ts",
  'globs: ["src/**/*.ts", "!src/gen/**"]',
  "globs:\n  - lib/**\n  - *.md",
  "alwaysApply: true",
  "alwaysApply: false",
  "trigger: always_on",
  "trigger: model_decision",
  "trigger: glob",
  'paths:\n  - "docs/**"',
  'applyTo: "**/*.py"',
  'condition: "console\\\\.log\\\\("',
  "since: 2024-01-02",
  "tags: [a, b",
  "priority: 7",
  "x: &a [1, 2]\ny: *a",
];

function ruleText(random: () => number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const body = pick(["Use the style.", "", "Body\twith\u0007 a bell.", "# Title\n\nText.", "Ünïcödé body ✓"]);
  const shape = random();
  if (shape < 0.15) return body; // no frontmatter
  if (shape < 0.2) return `---\n${pick(LINES)}\n${body}`; // never closed
  const lines = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(LINES));
  return `---\n${[...new Set(lines)].join("\n")}\n---\n${body}`;
}

describe("parse store: equal to uncached discovery on generated rule trees of every tool's format", () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`seed ${seed}: after each random edit, add, remove and rename`, async () => {
      const random = prng(seed);
      const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
      const files = new Set<string>();
      const newFile = () => {
        const place = pick(PLACES);
        const path = join(
          place.base === "home" ? world.home : world.cwd,
          place.dir,
          `r${files.size}-${seed}${place.ext}`,
        );
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, ruleText(random));
        files.add(path);
      };
      for (let i = 0; i < 12; i++) newFile();
      if (random() < 0.5) writeFileSync(join(world.cwd, ".cursorrules"), ruleText(random));
      for (let step = 0; step < 6; step++) {
        const expected = await uncached();
        const first = await session();
        expect(first.result, `seed ${seed} step ${step}: first session`).toEqual(expected);
        const second = await session();
        expect(second.result, `seed ${seed} step ${step}: from the store`).toEqual(expected);
        // a file whose frontmatter JSON cannot carry (a date) is parsed every session; every other one comes back
        expect(second.reads, `seed ${seed} step ${step}`).toBe(
          [...files].filter((f) => readFileSync(f, "utf8").includes("since: 2024")).length,
        );
        const list = [...files];
        const target = pick(list);
        const op = pick(["edit", "edit-same-size", "add", "remove", "rename"] as const);
        if (op === "edit") writeFileSync(target, ruleText(random));
        else if (op === "edit-same-size") {
          const before = statSync(target);
          const text = readFileSync(target, "utf8");
          writeFileSync(
            target,
            text.replace(/[a-z]/, (c) => (c === "z" ? "y" : "z")),
          );
          utimesSync(target, before.atime, new Date(before.mtimeMs + 5000));
        } else if (op === "add") newFile();
        else if (op === "remove") {
          rmSync(target);
          files.delete(target);
        } else {
          const to = target.replace(/r(\d+)-/, "m$1-");
          renameSync(target, to);
          files.delete(target);
          files.add(to);
        }
      }
    });
  }
});
