import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_TTSR_SETTINGS } from "../settings/defaults.ts";
import { type LoadTtsrRulesOptions, loadTtsrRules } from "./load.ts";
import { normalizedStoreFile } from "./normalized-store.ts";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function project(files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), "ttsr-store-"));
  roots.push(root);
  const cwd = join(root, "p");
  const home = join(root, "home");
  const agentDir = join(home, ".pi", "agent");
  mkdirSync(agentDir, { recursive: true });
  const write = (rel: string, text: string) => {
    mkdirSync(join(cwd, rel, ".."), { recursive: true });
    writeFileSync(join(cwd, rel), text);
  };
  for (const [rel, text] of Object.entries(files)) write(rel, text);
  const cacheDir = join(root, "cache");
  const options: LoadTtsrRulesOptions = { cwd, home, agentDir, settings: DEFAULT_TTSR_SETTINGS, cacheDir };
  return { cwd, cacheDir, options, write, store: () => normalizedStoreFile(cacheDir, cwd) };
}

const rule = (condition: string, body = "No.") => `---\ncondition: ${JSON.stringify(condition)}\n---\n${body}\n`;
const storedEntries = (file: string) => (JSON.parse(readFileSync(file, "utf8")) as { entries: unknown[] }).entries;

describe("normalized rules kept across sessions", () => {
  it("a start with unchanged rules reads them back: the same rules and warnings as normalizing them", async () => {
    const p = project({
      ".pi/rules/a.md": rule("foo\\("),
      ".pi/rules/b.md": '---\ncondition: ["bar", "*.ts"]\nscope: text, tool:edit, nonsense\n---\nB.\n',
      ".pi/rules/c.md": '---\ncondition: "(?i)baz"\ncooldown: "soon"\n---\nC.\n',
    });
    const fresh = await loadTtsrRules({ ...p.options, cacheDir: false });
    const first = await loadTtsrRules(p.options);
    const second = await loadTtsrRules(p.options);
    expect(first).toEqual(fresh);
    expect(second).toEqual(fresh);
    expect(fresh.issues.length).toBeGreaterThan(0);
    // One entry per rule the load normalized (the builtins too).
    expect(storedEntries(p.store())).toHaveLength(3 + 4);
  });

  it("answers from the store while a rule file is unchanged, and normalizes an edited one again", async () => {
    const p = project({ ".pi/rules/a.md": rule("foo\\("), ".pi/rules/b.md": rule("bar") });
    await loadTtsrRules(p.options);
    // Proof the store answers: an entry altered on disk comes back as stored.
    const data = JSON.parse(readFileSync(p.store(), "utf8"));
    for (const entry of data.entries) if (entry[1].rule.content === "No.") entry[1].rule.content = "from the store";
    writeFileSync(p.store(), JSON.stringify(data));
    const stored = await loadTtsrRules(p.options);
    expect(stored.rules.filter((r) => r.content === "from the store").map((r) => r.name)).toEqual(["a", "b"]);
    // An edit (new text, new mtime) is another rule: normalized from the file.
    p.write(".pi/rules/a.md", rule("foo\\(", "Edited."));
    const edited = await loadTtsrRules(p.options);
    expect(edited.rules.find((r) => r.name === "a")?.content).toBe("Edited.");
    expect(edited.rules.find((r) => r.name === "b")?.content).toBe("from the store");
  });

  it("keeps what normalizing gave, keyed by a hash: no path as shown to the model, no rule text in the keys", async () => {
    const p = project({ ".pi/rules/a.md": rule("foo\\("), ".pi/rules/b.md": rule("bar") });
    const first = await loadTtsrRules(p.options);
    const data = JSON.parse(readFileSync(p.store(), "utf8"));
    // the two rules and the shipped ones
    expect(data.entries.length).toBe(first.rules.length);
    for (const [key, result] of data.entries) {
      expect(key).toMatch(/^[\w-]{43}$/);
      expect(result.rule.displayPath).toBeUndefined();
    }
    expect(first.rules.slice(0, 2).map((r) => r.displayPath)).toEqual([".pi/rules/a.md", ".pi/rules/b.md"]);
    expect(await loadTtsrRules(p.options)).toEqual(first);
  });

  it("follows rules added and removed, and settings that drop rules", async () => {
    const p = project({ ".pi/rules/a.md": rule("foo\\("), ".pi/rules/b.md": rule("bar") });
    await loadTtsrRules(p.options);
    p.write(".pi/rules/c.md", rule("baz"));
    const added = await loadTtsrRules(p.options);
    expect(added.rules.map((r) => r.name)).toEqual(expect.arrayContaining(["a", "b", "c"]));
    expect(storedEntries(p.store())).toHaveLength(3 + 4);
    rmSync(join(p.cwd, ".pi/rules/b.md"));
    const removed = await loadTtsrRules(p.options);
    expect(removed.rules.map((r) => r.name)).not.toContain("b");
    expect(storedEntries(p.store())).toHaveLength(2 + 4);
    const settings = { ...DEFAULT_TTSR_SETTINGS, disabledRules: ["a"], builtinRules: false };
    const dropped = await loadTtsrRules({ ...p.options, settings });
    expect(dropped.rules.map((r) => r.name)).toEqual(["c"]);
    expect(dropped.dropped.map((d) => d.name)).toEqual(["a"]);
  });

  it("ignores a corrupt or foreign store and rewrites it, losing nothing", async () => {
    const p = project({ ".pi/rules/a.md": rule("foo\\("), ".pi/rules/b.md": rule("bar") });
    const fresh = await loadTtsrRules({ ...p.options, cacheDir: false });
    await loadTtsrRules(p.options);
    for (const junk of [
      "{not json",
      "null",
      '{"format":999,"entries":[]}',
      '{"format":1,"entries":[[1,2],["k","{"]]}',
    ]) {
      writeFileSync(p.store(), junk);
      expect(await loadTtsrRules(p.options)).toEqual(fresh);
      expect(storedEntries(p.store())).toHaveLength(2 + 4);
    }
    // A stored entry that is not JSON is normalized again.
    const data = JSON.parse(readFileSync(p.store(), "utf8"));
    for (const entry of data.entries) entry[1] = "{broken";
    writeFileSync(p.store(), JSON.stringify(data));
    expect(await loadTtsrRules(p.options)).toEqual(fresh);
  });

  it("keeps each project's store apart, in a folder named by the normalizing code", async () => {
    const p = project({ ".pi/rules/a.md": rule("foo\\(") });
    await loadTtsrRules(p.options);
    const [folder] = readdirSync(p.cacheDir);
    expect(folder).toMatch(/^rules-[0-9a-f]{16}$/);
    expect(normalizedStoreFile(p.cacheDir, "/elsewhere")).not.toBe(p.store());
    expect(normalizedStoreFile(p.cacheDir, "/elsewhere").startsWith(join(p.cacheDir, folder!))).toBe(true);
    // `false`: no store written.
    const q = project({ ".pi/rules/a.md": rule("foo\\(") });
    await loadTtsrRules({ ...q.options, cacheDir: false });
    expect(() => readdirSync(q.cacheDir)).toThrow();
  });
});
