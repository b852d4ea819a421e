import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { recordReads } from "@pi-rails/agent-core/kit";
import matter from "gray-matter";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadParseStore } from "../src/discovery/parse-store.ts";
import { yamlBlockData } from "../src/frontmatter/parse.ts";
import { tempWorld, writeTree } from "../src/testing/tree.ts";

/**
 * rulebook parses a YAML frontmatter block with js-yaml's `safeLoad` directly (gray-matter's own YAML engine, from
 * the js-yaml gray-matter depends on) instead of loading gray-matter. The oracle here is gray-matter itself, on
 * the same block: data, or the same error, for every block.
 */

const REFUSE = {
  parse: () => {
    throw new Error("refused");
  },
};
const viaGrayMatter = (language: string, yaml: string) =>
  matter(`---${language}\n${yaml}\n---\n`, { engines: { js: REFUSE, javascript: REFUSE } }).data;

const outcome = (f: () => unknown) => {
  try {
    return { data: f() };
  } catch (error) {
    return { error: (error as Error).message, name: (error as Error).name };
  }
};

/** Every frontmatter block of the corpus fixtures (real-world forms), as the file has it. */
function corpusBlocks(): string[] {
  const root = fileURLToPath(new URL("./fixtures", import.meta.url));
  const blocks: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const m = /^---[^\n]*\n([\s\S]*?)\r?\n---/.exec(readFileSync(path, "utf8"));
        if (m) blocks.push(m[1]!);
      }
    }
  };
  walk(root);
  return blocks;
}

const BLOCKS = [
  "",
  "# only a comment",
  "  # indented comment\n\n",
  "description: a rule",
  'description: "quoted: yes"',
  "description: a: b",
  "globs: *.tsx",
  'globs: ["src/**/*.ts"]',
  "globs:\n  - lib/**\n  - '*.md'",
  "alwaysApply: true\ntrigger: always_on",
  "since: 2024-01-02\nat: 2024-01-02T10:00:00Z",
  "n: 0x1F\nf: 1e3\nyes: yes\nno: ~\noct: 0o17",
  "tags: [a, b",
  "x: &a [1, 2]\ny: *a",
  "a: 1\na: 2",
  "- a list\n- not a map",
  "just text",
  "fn: !!js/function 'function () {}'",
  "re: !!js/regexp /a/",
  "u: !!js/undefined ''",
  "k: !!binary aGVsbG8=",
  "s: !!set {a, b}",
  "o: !!omap [a: 1]",
  "t: !!timestamp 2001-12-14",
  "__proto__: polluted\nconstructor: x",
  "a: 1\n----\nb: 2",
  "a: 1\n--- x\nb: 2",
  "a: |\n  line one\n  line two\nb: >\n  folded\n  text",
  "a: 1\r\nb: 2\r",
  "\ttab: 1",
  "key with spaces: v\n'quoted key': 2\n? complex\n: value",
  "a: 'unterminated",
  "a: b\n  c: d",
  "@at: 1",
  "a: `tick`",
  "über: ✓",
];

describe("YAML frontmatter without gray-matter: the same as gray-matter's YAML engine", () => {
  const corpus = corpusBlocks();
  it("the corpus has blocks to compare", () => expect(corpus.length).toBeGreaterThan(10));
  for (const language of ["", "yaml", "yml", "YAML"]) {
    it(`---${language}: every block gives gray-matter's data or error`, () => {
      for (const block of [...BLOCKS, ...corpus]) {
        expect(
          outcome(() => yamlBlockData(language, block)),
          JSON.stringify(block),
        ).toEqual(outcome(() => viaGrayMatter(language, block)));
      }
    });
  }
  it("the parse store keys on the js-yaml that parses (gray-matter's own), read without loading it", async () => {
    const fromGrayMatter = createRequire(createRequire(import.meta.url).resolve("gray-matter"));
    const jsYaml = realpathSync(fromGrayMatter.resolve("js-yaml/package.json"));
    // a store from another parser: reading it computes this parser's fingerprint, and notes what that read
    const store = join(mkdtempSync(join(tmpdir(), "rulebook-store-")), "store.json");
    writeFileSync(store, JSON.stringify({ fingerprint: "another parser", entries: [] }));
    const { paths } = await recordReads(async () => loadParseStore(store));
    expect(paths.map((path) => realpathSync(path))).toContain(jsYaml);
    expect(JSON.parse(readFileSync(jsYaml, "utf8")).version).toMatch(/^3\./);
  });
  it("another language still goes through gray-matter (---json parses, ---toml is not registered)", () => {
    expect(yamlBlockData("json", '{"a": 1}')).toEqual({ a: 1 });
    expect(() => yamlBlockData("toml", "a = 1")).toThrow('gray-matter engine "toml" is not registered');
  });
});

describe("a session that must parse a rule file loads js-yaml's single-file build, not gray-matter", () => {
  let world: Awaited<ReturnType<typeof tempWorld>>;
  beforeEach(async () => {
    world = await tempWorld();
  });
  afterEach(() => world.dispose());

  /** Loads the rules in a fresh process from the built package: the first rule, and the YAML modules loaded. */
  const freshSession = () => {
    const entry = fileURLToPath(new URL("../dist/discovery/index.js", import.meta.url));
    const options = { cwd: world.cwd, home: world.home, agentDir: world.agentDir, parseStore: false };
    const script = `
      import { createRequire } from "node:module";
      const { loadRules } = await import(${JSON.stringify(entry)});
      const r = await loadRules(${JSON.stringify(options)});
      const loaded = Object.keys(createRequire(import.meta.url).cache).map((p) => p.split("node_modules/").pop());
      console.log(JSON.stringify({ rule: [r.rules[0].description, r.rules[0].globs], loaded: loaded.filter((p) => /gray-matter|js-yaml/.test(p)) }));`;
    return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
  };

  it("gray-matter and js-yaml's forty modules are not loaded (a fresh process, the built package); the rule is read", async () => {
    // a YAML list: more than flat-yaml.ts reads
    await writeTree(world.cwd, { ".pi/rules/a.md": "---\ndescription: rule a\nglobs:\n  - src/**/*.ts\n---\nAAAA" });
    expect(freshSession()).toEqual({ rule: ["rule a", ["src/**/*.ts"]], loaded: ["js-yaml/dist/js-yaml.min.js"] });
  });

  it("flat frontmatter (one key: value per line) loads no YAML parser at all", async () => {
    await writeTree(world.cwd, { ".pi/rules/a.md": "---\ndescription: rule a\nglobs: src/**/*.ts\n---\nAAAA" });
    expect(freshSession()).toEqual({ rule: ["rule a", ["src/**/*.ts"]], loaded: [] });
  });
});
