import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliIo } from "@pi-rails/agent-core/kit";
import { describe, expect, it } from "vitest";
import { main } from "./main.ts";

function sandbox(files: Record<string, string>, stdin?: string) {
  const root = mkdtempSync(join(tmpdir(), "ttsr-cli-"));
  const cwd = join(root, "p");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(cwd, rel, ".."), { recursive: true });
    writeFileSync(join(cwd, rel), text);
  }
  mkdirSync(join(root, "agent"), { recursive: true });
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    readStdin: async () => stdin,
    cwd,
    env: { PI_CODING_AGENT_DIR: join(root, "agent") },
  };
  return { io, cwd, out: () => out.join(""), err: () => err.join("") };
}

const NO_CONSOLE = '---\ntrigger: "console\\\\.log\\\\("\n---\nUse the logger.\n';
const TS_ONLY = '---\ncondition: ":\\\\s*any\\\\b"\nscope: tool:write(*.ts)\n---\nNo any.\n';

describe("ttsr CLI", () => {
  it("test: exit 1 on a match with its position, 0 without", async () => {
    const s = sandbox({ ".pi/rules/no-console.md": NO_CONSOLE });
    expect(await main(["test", "a\nb console.log(1)"], s.io)).toBe(1);
    expect(s.out()).toMatch(/MATCH no-console \(interrupt\) at 2:14/);
    const t = sandbox({ ".pi/rules/no-console.md": NO_CONSOLE });
    expect(await main(["test", "log.info(1)"], t.io)).toBe(0);
  });

  it("test: reads stdin and --file, takes --source/--tool/--path, and --rule tests one rule alone", async () => {
    const s = sandbox({ "rules/ts.md": TS_ONLY, "x.ts": "let a: any;" }, "let b: any;");
    expect(await main(["test", "--rule", "rules/ts.md", "--path", "src/a.ts", "--json"], s.io)).toBe(1);
    const json = JSON.parse(s.out());
    expect(json.matches).toEqual([expect.objectContaining({ rule: "ts", delivery: "interrupt", line: 1, column: 10 })]);
    const md = sandbox({ "rules/ts.md": TS_ONLY }, "let b: any;");
    expect(await main(["test", "--rule", "rules/ts.md", "--path", "notes.md"], md.io)).toBe(0);
    const prose = sandbox({ "rules/ts.md": TS_ONLY, "x.ts": "let a: any;" });
    expect(await main(["test", "--rule", "rules/ts.md", "--file", "x.ts", "--source", "text"], prose.io)).toBe(0);
  });

  it("exit 2 on usage and load errors, with a message", async () => {
    const s = sandbox({ "bad.md": '---\ncondition: "("\n---\nx\n' });
    expect(await main(["test", "--rule", "bad.md", "x"], s.io)).toBe(2);
    expect(s.err()).toMatch(/bad\.md \(condition\).*invalid regex/);
    expect(await main(["frobnicate"], s.io)).toBe(2);
    expect(await main(["test", "--nope"], s.io)).toBe(2);
    expect(await main(["scan", "missing-dir"], s.io)).toBe(2);
  });

  it("list: rules, conditions, engines, scope, source file, skipped rules and warnings", async () => {
    const s = sandbox({
      ".pi/rules/no-console.md": NO_CONSOLE,
      ".pi/rules/nowhere.md": '---\ncondition: "x"\nscope: b@d\n---\nx\n',
    });
    expect(await main(["list", "--json"], s.io)).toBe(0);
    const json = JSON.parse(s.out());
    const mine = json.rules.find((r: { name: string }) => r.name === "no-console");
    expect(mine).toMatchObject({
      format: "proposal",
      window: "line",
      engines: ["dfa"],
      conditions: ["/console\\.log\\(/"],
    });
    expect(json.skipped).toEqual([
      expect.objectContaining({ name: "nowhere", reason: expect.stringMatching(/reaches no stream/) }),
    ]);
    expect(json.warnings.join("\n")).toMatch(/nowhere\.md \(scope\): unknown token "b@d"/);
  });

  it("scan: runs the rules over files like a linter, honoring .gitignore", async () => {
    const s = sandbox({
      ".pi/rules/ts.md": TS_ONLY,
      ".gitignore": "dist/\n",
      "src/a.ts": "ok\nlet a: any = 1;\n",
      "src/b.md": "let a: any = 1;\n",
      "dist/c.ts": "let c: any;\n",
    });
    expect(await main(["scan", ".", "--json"], s.io)).toBe(1);
    const json = JSON.parse(s.out());
    expect(json.findings).toEqual([expect.objectContaining({ file: "src/a.ts", rule: "ts", line: 2 })]);
    // A sub-folder is scanned with the project's rules, paths relative to the project.
    const sub = sandbox({ ".pi/rules/ts.md": TS_ONLY, "src/a.ts": "let a: any = 1;\n" });
    expect(await main(["scan", "src", "--json"], sub.io)).toBe(1);
    expect(JSON.parse(sub.out()).findings).toEqual([expect.objectContaining({ file: "src/a.ts", rule: "ts" })]);
  });

  it("--cwd that is missing or not a directory: a clear error and exit 2", async () => {
    const s = sandbox({ "file.txt": "x" });
    expect(await main(["list", "--cwd", "nope"], s.io)).toBe(2);
    expect(s.err()).toMatch(/--cwd nope: no such directory/);
    expect(await main(["test", "x", "--cwd", "file.txt"], s.io)).toBe(2);
    expect(s.err()).toMatch(/--cwd file\.txt: not a directory/);
  });

  it("--file that is a FIFO or a directory: a clear error and exit 2, without blocking", async () => {
    const s = sandbox({ "dir/x.ts": "x" });
    execFileSync("mkfifo", [join(s.cwd, "pipe")]);
    expect(await main(["test", "--file", "pipe"], s.io)).toBe(2);
    expect(s.err()).toMatch(/--file pipe: it is a FIFO/);
    expect(await main(["test", "--file", "dir"], s.io)).toBe(2);
    expect(s.err()).toMatch(/--file dir: it is a directory/);
    expect(await main(["test", "--file", "missing.ts"], s.io)).toBe(2);
  });

  it("test --file x.ts alone is a write or an edit of that path", async () => {
    const EDIT_ONLY = '---\ncondition: ":\\\\s*any\\\\b"\nscope: tool:edit(*.ts)\n---\nNo any.\n';
    const s = sandbox({ ".pi/rules/edit.md": EDIT_ONLY, ".pi/rules/write.md": TS_ONLY, "src/x.ts": "let a: any;\n" });
    expect(await main(["test", "--file", "src/x.ts", "--json"], s.io)).toBe(1);
    const json = JSON.parse(s.out());
    expect(json).toMatchObject({ source: "tool", path: "src/x.ts" });
    expect(json.matches.map((m: { rule: string; tool: string }) => `${m.rule}:${m.tool}`).sort()).toEqual([
      "edit:edit",
      "write:write",
    ]);
    const md = sandbox({ ".pi/rules/edit.md": EDIT_ONLY, "notes.md": "let a: any;\n" });
    expect(await main(["test", "--file", "notes.md"], md.io)).toBe(0);
    expect(md.out()).toMatch(/source tool write\/edit of notes\.md/);
  });

  it("scan: a sub-folder honours the project root's .gitignore, and edit-scoped rules are checked", async () => {
    const EDIT_ONLY = '---\ncondition: ":\\\\s*any\\\\b"\nscope: tool:edit(*.ts)\n---\nNo any.\n';
    const s = sandbox({
      ".pi/rules/edit.md": EDIT_ONLY,
      ".gitignore": "build/\n*.gen.ts\n",
      "src/.gitignore": "local.ts\n",
      "src/lib/a.ts": "let a: any;\n",
      "src/lib/b.gen.ts": "let b: any;\n",
      "src/lib/local.ts": "let c: any;\n",
      "src/lib/build/c.ts": "let d: any;\n",
    });
    expect(await main(["scan", "src/lib", "--json"], s.io)).toBe(1);
    expect(JSON.parse(s.out()).findings).toEqual([expect.objectContaining({ file: "src/lib/a.ts", rule: "edit" })]);
  });

  it("scan honours ttsr.enabled: false in the project's settings: nothing scanned, and it says why", async () => {
    const files = {
      ".pi/rules/ts.md": TS_ONLY,
      ".pi/settings.json": JSON.stringify({ ttsr: { enabled: false } }),
      "a.ts": "let a: any;\n",
    };
    const s = sandbox(files);
    const settings = join(s.cwd, ".pi/settings.json");
    expect(await main(["scan", "."], s.io)).toBe(0);
    expect(s.out()).toBe(
      `ttsr.enabled is false in ${settings}: a session here watches no rule, so nothing was scanned\n`,
    );
    const j = sandbox(files);
    expect(await main(["scan", ".", "--json"], j.io)).toBe(0);
    expect(JSON.parse(j.out())).toMatchObject({ enabled: false, scanned: false, files: 0, findings: [] });
    // test still checks the rules (what they would do), with a note that a session would not
    const t = sandbox(files);
    expect(await main(["test", "let a: any;", "--path", "a.ts"], t.io)).toBe(1);
    expect(t.err()).toMatch(/ttsr\.enabled is false/);
  });

  it("list and test: a name in rulebook.disabledRules is not loaded (as with ttsr.disabledRules), and not a warning", async () => {
    const files = {
      ".pi/rules/no-console.md": NO_CONSOLE,
      ".pi/settings.json": JSON.stringify({ rulebook: { disabledRules: ["no-console", "no-force-push"] } }),
    };
    const s = sandbox(files);
    expect(await main(["list", "--json"], s.io)).toBe(0);
    const json = JSON.parse(s.out());
    expect(json.rules.map((r: { name: string }) => r.name)).not.toContain("no-console");
    expect(json.rules.map((r: { name: string }) => r.name)).not.toContain("no-force-push");
    expect(json.skipped.map((r: { name: string; reason: string }) => `${r.name}: ${r.reason}`)).toEqual([
      'no-console: disabled by rulebook.disabledRules ("no-console")',
      'no-force-push: disabled by rulebook.disabledRules ("no-force-push")',
    ]);
    expect(json.warnings).toEqual([]);
    const t = sandbox(files);
    expect(await main(["test", "console.log(1)"], t.io)).toBe(0);
  });

  it("list: the reference's keys, unknown keys once, and inline flags", async () => {
    const s = sandbox({
      ".pi/rules/ref.md":
        '---\ncondition: "(?i)todo"\nscope: edit\ninterruptMode: tool-only\nastCondition: "x"\n---\nx\n',
      ".pi/rules/rs.md": '---\ncondition: "*.rs"\n---\nRust.\n',
      ".pi/rules/pcre.md": '---\ncondition: "(?x) a b"\n---\nx\n',
    });
    expect(await main(["list", "--json"], s.io)).toBe(0);
    const json = JSON.parse(s.out());
    const byName = Object.fromEntries(json.rules.map((r: { name: string }) => [r.name, r]));
    expect(byName.ref).toMatchObject({
      conditions: ["/todo/i"],
      scope: "tool:edit",
      interruptMode: "tool-only",
      unknownKeys: ["astCondition"],
    });
    expect(byName.rs).toMatchObject({ scope: "tool:edit(*.rs), tool:write(*.rs)" });
    expect(json.skipped).toEqual([expect.objectContaining({ name: "pcre" })]);
    const warnings = json.warnings.join("\n");
    expect(warnings).toMatch(/pcre\.md \(condition\): .*inline group "\(\?x\)"/);
    expect(warnings.match(/astCondition/g)).toHaveLength(2); // one warning, naming it as key and in the message
    const text = sandbox({ ".pi/rules/ref.md": '---\ncondition: "todo"\nfoo: 1\n---\nx\n' });
    await main(["list"], text.io);
    expect(text.out()).toMatch(/unknown keys \(ignored\): foo/);
    const hit = sandbox({ ".pi/rules/rs.md": '---\ncondition: "*.rs"\n---\nRust.\n' });
    expect(await main(["test", "fn main() {}", "--path", "src/main.rs", "--tool", "write"], hit.io)).toBe(1);
    const miss = sandbox({ ".pi/rules/rs.md": '---\ncondition: "*.rs"\n---\nRust.\n' });
    expect(await main(["test", "fn main() {}", "--path", "src/main.go", "--tool", "write"], miss.io)).toBe(0);
  });

  it.each(["~", "~/x"])(
    "reads rules and settings from PI_CODING_AGENT_DIR=%s under HOME, as pi does",
    async (value) => {
      const s = sandbox({ "README.md": "x" });
      const home = join(s.cwd, "..", "home");
      const agentDir = value === "~" ? home : join(home, "x");
      mkdirSync(join(agentDir, "rules"), { recursive: true });
      writeFileSync(join(agentDir, "rules", "mine.md"), NO_CONSOLE);
      writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ ttsr: { typo: 1 } }));
      const io = { ...s.io, env: { HOME: home, PI_CODING_AGENT_DIR: value } };
      expect(await main(["list", "--json"], io)).toBe(0);
      const json = JSON.parse(s.out());
      expect(json.rules.map((r: { name: string }) => r.name)).toContain("mine");
      expect(json.warnings).toContainEqual(expect.stringContaining(`${join(agentDir, "settings.json")}: ttsr.typo`));
    },
  );
});
