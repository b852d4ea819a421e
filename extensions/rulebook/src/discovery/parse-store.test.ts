import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempWorld, writeTree } from "../testing/tree.ts";
import { loadRules } from "./load.ts";
import { clearParseCache, parseCacheStats } from "./parse-cache.ts";
import { defaultParseStore } from "./parse-store.ts";

let world: Awaited<ReturnType<typeof tempWorld>>;
let store: string;
beforeEach(async () => {
  world = await tempWorld();
  store = join(world.root, "store", "project.json");
  clearParseCache();
  await writeTree(world.cwd, {
    ".pi/rules/style.md": "---\ndescription: style\nglobs: src/**/*.ts\n---\nUse the style.",
    ".cursor/rules/react.mdc": "---\nglobs: *.tsx\nalwaysApply: false\n---\nReact rule.",
    // a YAML list: this file needs js-yaml (the others are read without it, flat-yaml.ts)
    ".windsurf/rules/always.md": "---\ntrigger: always_on\ntags: [a, b]\n---\nAlways.",
  });
});
afterEach(() => world.dispose());

const load = () => loadRules({ cwd: world.cwd, home: world.home, agentDir: world.agentDir, parseStore: store });
const summary = (r: Awaited<ReturnType<typeof load>>) =>
  r.rules.map((x) => ({ name: x.name, content: x.content, globs: x.globs, alwaysApply: x.alwaysApply }));

describe("parse store: parses kept on disk across sessions", () => {
  it("a second session reads every unchanged file's parse from the store and loads the same rules", async () => {
    const first = await load();
    expect(parseCacheStats().reads).toBe(3);
    expect(existsSync(store)).toBe(true);
    clearParseCache(); // a new process
    const second = await load();
    expect(parseCacheStats()).toMatchObject({ reads: 0, hits: 3 });
    expect(summary(second)).toEqual(summary(first));
  });

  it("a changed file is parsed again, and only it", async () => {
    await load();
    clearParseCache();
    const file = join(world.cwd, ".pi/rules/style.md");
    const before = statSync(file);
    writeFileSync(file, "---\ndescription: style\nglobs: lib/**/*.ts\n---\nUse the style.");
    utimesSync(file, before.atime, before.mtime); // same size and mtime: ctime still tells
    const second = await load();
    expect(parseCacheStats()).toMatchObject({ reads: 1, hits: 2 });
    expect(second.rules.find((r) => r.name === "style")?.globs).toEqual(["lib/**/*.ts"]);
  });

  it("a corrupt or foreign store is ignored and rewritten", async () => {
    await load();
    writeFileSync(store, "{ not json");
    clearParseCache();
    expect((await load()).rules).toHaveLength(3);
    expect(parseCacheStats().reads).toBe(3);
    expect(JSON.parse(readFileSync(store, "utf8")).entries).toHaveLength(3);
    writeFileSync(store, JSON.stringify({ fingerprint: "older parser", entries: [] }));
    clearParseCache();
    await load();
    expect(parseCacheStats().reads).toBe(3);
  });

  it("keeps out what JSON cannot carry (a YAML date), and still loads it", async () => {
    await writeTree(world.cwd, { ".pi/rules/dated.md": "---\ndescription: dated\nsince: 2024-01-02\n---\nDated." });
    const first = await load();
    expect(first.rules.find((r) => r.name === "dated")?.meta["since"]).toBeInstanceOf(Date);
    const stored = JSON.parse(readFileSync(store, "utf8")).entries.map((e: { path: string }) => e.path);
    expect(stored).toHaveLength(3);
    expect(stored.some((p: string) => p.endsWith("dated.md"))).toBe(false);
    clearParseCache();
    const written = statSync(store).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    expect((await load()).rules.find((r) => r.name === "dated")?.meta["since"]).toBeInstanceOf(Date);
    expect(statSync(store).mtimeMs).toBe(written); // the dated file is parsed again, the store is not rewritten
  });

  it("lives under the agent dir per project, moves with PI_RULEBOOK_CACHE_DIR, and `off` turns it off", () => {
    const a = defaultParseStore("/agent", "/work/a", {});
    expect(a).toMatch(/^\/agent\/cache\/rulebook\/[0-9a-f]{24}\.json$/);
    expect(defaultParseStore("/agent", "/work/b", {})).not.toBe(a);
    expect(defaultParseStore("/agent", "/work/a", { PI_RULEBOOK_CACHE_DIR: "/c" })).toMatch(/^\/c\//);
    expect(defaultParseStore("/agent", "/work/a", { PI_RULEBOOK_CACHE_DIR: "off" })).toBe(false);
  });

  it("a session served from the store never loads the YAML parser (fresh processes, the built package)", () => {
    const entry = fileURLToPath(new URL("../../dist/discovery/index.js", import.meta.url));
    const script = `
      import { createRequire } from "node:module";
      const { loadRules } = await import(${JSON.stringify(entry)});
      const r = await loadRules(${JSON.stringify({ cwd: world.cwd, home: world.home, agentDir: world.agentDir, parseStore: store })});
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({ rules: r.rules.length, yaml: loaded.filter((p) => /(gray-matter|js-yaml).*\\.js$/.test(p)).length }));`;
    const session = () =>
      JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
    expect(session().yaml).toBeGreaterThan(0); // the first session parses (and fills the store)
    expect(session()).toEqual({ rules: 3, yaml: 0 });
  });
});
