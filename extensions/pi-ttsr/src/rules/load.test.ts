import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_TTSR_SETTINGS } from "../settings/defaults.ts";
import { loadTtsrRules } from "./load.ts";

function project(files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), "ttsr-load-"));
  const cwd = join(root, "p");
  const home = join(root, "home");
  const agentDir = join(home, ".pi", "agent");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(cwd, rel, ".."), { recursive: true });
    writeFileSync(join(cwd, rel), text);
  }
  mkdirSync(agentDir, { recursive: true });
  return { cwd, home, agentDir };
}

describe("loadTtsrRules", () => {
  it("loads project rules through rulebook plus the shipped rules; user rules shadow builtins by name", async () => {
    const p = project({
      ".pi/rules/mine.md": '---\ncondition: "foo"\n---\nNo foo.\n',
      ".pi/rules/no-force-push.md": '---\ncondition: "push -f"\nscope: tool:bash\n---\nMine.\n',
      ".pi/rules/plain.md": "---\ndescription: not a stream rule\n---\nbody\n",
      ".cursor/rules/cur.mdc": '---\nttsr_trigger: "bar"\n---\nNo bar.\n',
    });
    const loaded = await loadTtsrRules({ ...p, settings: DEFAULT_TTSR_SETTINGS });
    const names = loaded.rules.map((r) => r.name);
    expect(names).toEqual(
      expect.arrayContaining(["mine", "no-force-push", "cur", "no-ts-ignore", "no-hardcoded-secrets"]),
    );
    expect(names).not.toContain("plain");
    expect(loaded.rules.find((r) => r.name === "no-force-push")?.builtin).toBe(false);
    expect(loaded.dropped).toEqual([
      expect.objectContaining({ name: "no-force-push", reason: "shadowed by a user rule" }),
    ]);
  });

  it("drops builtins with builtinRules false and names with disabledRules", async () => {
    const p = project({ ".pi/rules/mine.md": '---\ncondition: "foo"\n---\nNo foo.\n' });
    const loaded = await loadTtsrRules({
      ...p,
      settings: { ...DEFAULT_TTSR_SETTINGS, builtinRules: false, disabledRules: ["mine"] },
    });
    expect(loaded.rules).toEqual([]);
    expect(loaded.dropped.map((d) => d.reason)).toEqual(['disabled by ttsr.disabledRules ("mine")']);
  });

  it("trims disabledRules entries and ignores empty ones", async () => {
    const p = project({ ".pi/rules/mine.md": '---\ncondition: "foo"\n---\nNo foo.\n' });
    const loaded = await loadTtsrRules({
      ...p,
      settings: { ...DEFAULT_TTSR_SETTINGS, builtinRules: false, disabledRules: [" mine ", ""] },
    });
    expect(loaded.rules).toEqual([]);
    expect(loaded.dropped).toEqual([expect.objectContaining({ name: "mine" })]);
  });

  it("does not make a Windsurf rule in .pi/rules a stream rule", async () => {
    const p = project({
      ".pi/rules/always.md": "---\ntrigger: always_on\n---\nAlways.\n",
      ".pi/rules/decide.md": "---\ntrigger: model_decision\ndescription: when testing\n---\nTests.\n",
      ".pi/rules/globbed.md": '---\ntrigger: glob\nglobs: "*.ts"\n---\nTS.\n',
      ".pi/rules/manual.md": "---\ntrigger: manual\n---\nManual.\n",
    });
    const loaded = await loadTtsrRules({ ...p, settings: { ...DEFAULT_TTSR_SETTINGS, builtinRules: false } });
    expect(loaded.rules).toEqual([]);
  });

  it('reads a scope the YAML fallback left quoted (`scope: "text","thinking"`) as both streams', async () => {
    const p = project({
      ".pi/rules/both.md": '---\ncondition: "secret"\nscope: "text","thinking"\n---\nNo secrets.\n',
    });
    const loaded = await loadTtsrRules({ ...p, settings: { ...DEFAULT_TTSR_SETTINGS, builtinRules: false } });
    expect(loaded.rules[0]?.scope).toEqual({ text: true, thinking: true, tools: [] });
  });

  it("names rule files for the model relative to the project, or ~/ for the user's rules", async () => {
    const p = project({ ".pi/rules/mine.md": '---\ncondition: "foo"\n---\nNo foo.\n' });
    mkdirSync(join(p.agentDir, "rules"), { recursive: true });
    writeFileSync(join(p.agentDir, "rules", "user.md"), '---\ncondition: "bar"\n---\nNo bar.\n');
    const loaded = await loadTtsrRules({ ...p, settings: DEFAULT_TTSR_SETTINGS });
    const shown = Object.fromEntries(loaded.rules.map((r) => [r.name, r.displayPath]));
    expect(shown).toMatchObject({
      mine: ".pi/rules/mine.md",
      user: "~/.pi/agent/rules/user.md",
      "no-ts-ignore": "pi-ttsr/rules/no-ts-ignore.mdc",
    });
  });

  it("names a rule file discovery skips (a YAML alias bomb), and its siblings still load", async () => {
    const bomb = [
      "---",
      'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
      "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]",
      "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]",
      "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]",
      "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]",
      'ttsr_trigger: "boom"',
      "---",
      "Bomb.",
    ].join("\n");
    const p = project({
      ".cursor/rules/bomb.mdc": bomb,
      ".cursor/rules/ok.mdc": '---\nttsr_trigger: "bar"\n---\nNo bar.\n',
    });
    const loaded = await loadTtsrRules({ ...p, settings: { ...DEFAULT_TTSR_SETTINGS, builtinRules: false } });
    expect(loaded.rules.map((r) => r.name)).toEqual(["ok"]);
    expect(loaded.issues).toEqual([
      expect.objectContaining({
        path: join(p.cwd, ".cursor/rules/bomb.mdc"),
        message: expect.stringMatching(/skipped/),
      }),
    ]);
  });

  it("rulebook.disabledRules turns a rule off for TTSR too, shipped rules included; listed as not loaded, no warning", async () => {
    const p = project({
      ".pi/rules/mine.md": '---\ncondition: "foo"\n---\nNo foo.\n',
      ".pi/rules/kept.md": '---\ncondition: "bar"\n---\nNo bar.\n',
      ".pi/settings.json": JSON.stringify({ rulebook: { disabledRules: ["mine", "no-force-push"] } }),
    });
    const loaded = await loadTtsrRules({ ...p, settings: DEFAULT_TTSR_SETTINGS });
    const names = loaded.rules.map((r) => r.name);
    expect(names).toContain("kept");
    expect(names).not.toContain("mine");
    expect(names).not.toContain("no-force-push");
    expect(loaded.issues).toEqual([]);
    expect(loaded.dropped).toEqual([
      { name: "mine", path: join(p.cwd, ".pi/rules/mine.md"), reason: 'disabled by rulebook.disabledRules ("mine")' },
      expect.objectContaining({
        name: "no-force-push",
        reason: 'disabled by rulebook.disabledRules ("no-force-push")',
      }),
    ]);
  });

  it("a tool scope whose glob can never match is named once with the file and the glob; the rule still loads", async () => {
    const p = project({
      ".pi/rules/w.md": '---\ncondition: "x"\nscope: tool:write(src/[a.ts)\nglobs: ["src/{b,c"]\n---\nNo x.\n',
    });
    const loaded = await loadTtsrRules({ ...p, settings: { ...DEFAULT_TTSR_SETTINGS, builtinRules: false } });
    expect(loaded.rules.map((r) => r.name)).toEqual(["w"]);
    const path = join(p.cwd, ".pi/rules/w.md");
    expect(loaded.issues).toEqual([
      expect.objectContaining({
        path,
        key: "globs",
        message: expect.stringMatching(/"src\/\{b,c" has an unclosed "\{"/),
      }),
      expect.objectContaining({
        path,
        key: "scope",
        message: expect.stringMatching(/glob "src\/\[a\.ts" has an unclosed "\[".* \(in tool:write\(\.\.\.\)\)$/),
      }),
    ]);
  });
});
