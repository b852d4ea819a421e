import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { closeAfterEach, createTestSession, fauxAssistantMessage, fauxToolCall } from "@pi-rails/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { doctorReport } from "../src/cli/report.ts";
import { loadRules } from "../src/discovery/load.ts";
import { clearParseCache } from "../src/discovery/parse-cache.ts";
import rulebook from "../src/extension.ts";
import { DEFAULT_SETTINGS } from "../src/settings/defaults.ts";
import { tempWorld, writeTree } from "../src/testing/tree.ts";
import { ALIAS_BOMB, cli, recordedSession, toolResults, warnedIn } from "./support.ts";

/** Issue 25: what hostile and real inputs (and users arriving from oh-my-pi) still broke. */

const keep = closeAfterEach(afterEach);
let world: Awaited<ReturnType<typeof tempWorld>>;
beforeEach(async () => {
  world = keep(await tempWorld());
  clearParseCache();
});

describe("disabledRules: either key turns a rule off everywhere", () => {
  it("ttsr.disabledRules (the reference's key) and rulebook.disabledRules drop rules from every bucket of a real session", async () => {
    const { t, contexts } = await recordedSession(
      keep,
      [
        fauxAssistantMessage([
          fauxToolCall("read", { path: "src/api/users.ts" }),
          fauxToolCall("read_rule", { name: "api" }),
        ]),
        fauxAssistantMessage("done"),
      ],
      {
        files: {
          ".pi/rules/style.md": "---\nalwaysApply: true\n---\nUse two spaces.",
          ".pi/rules/legacy.md": "---\nalwaysApply: true\n---\nLEGACY-CONTENT",
          ".cursor/rules/api.mdc":
            "---\ndescription: HTTP API conventions\nglobs: src/api/**\n---\nReturn JSON errors.",
          ".pi/rules/watch.md": "---\ndescription: Never log\ncondition: console\\.log\n---\nNo console.log.",
          "src/api/users.ts": "export const users = [];\n",
        },
        projectSettings: { ttsr: { disabledRules: ["api", "watch"] }, rulebook: { disabledRules: ["legacy"] } },
      },
    );
    await t.prompt("work");
    const prompt = contexts[0]!.systemPrompt;
    expect(prompt).toContain("Use two spaces.");
    for (const gone of ["LEGACY-CONTENT", '"api"', "HTTP API conventions", '"watch"', "Never log"])
      expect(prompt).not.toContain(gone);
    // not attached to a matching read, not readable
    const [read, readRule] = toolResults(contexts[1]!);
    expect(read!.text).not.toContain("<rule");
    expect(readRule!.text).toBe('Unknown rule "api". Available rules: style');
    // turned off on purpose: listed by doctor, not a warning every session
    expect(warnedIn(t).filter((m) => m.includes("disabled"))).toEqual([]);

    const where = ["--cwd", t.cwd, "--home", t.home, "--agent-dir", t.agentDir];
    const list = await cli("list", ...where);
    expect(list.out.split("\n").map((l) => l.split(/\s+/)[0])).toEqual(["NAME", "style"]);
    const doctor = JSON.parse((await cli("doctor", "--json", ...where)).out) as {
      skipped: { path: string; kind: string; reason: string }[];
    };
    expect(doctor.skipped.map((s) => [s.path.slice(t.cwd.length + 1), s.kind, s.reason])).toEqual([
      [".pi/rules/legacy.md", "disabled", 'disabled by rulebook.disabledRules ("legacy")'],
      [".pi/rules/watch.md", "disabled", 'disabled by ttsr.disabledRules ("watch")'],
      [".cursor/rules/api.mdc", "disabled", 'disabled by ttsr.disabledRules ("api")'],
    ]);
  });

  it("a project's ttsr.disabledRules overrides the user's, as pi-ttsr reads it; non-string entries are ignored", async () => {
    await writeTree(world.cwd, {
      ".pi/rules/a.md": "---\nalwaysApply: true\n---\nA.",
      ".pi/rules/b.md": "---\nalwaysApply: true\n---\nB.",
      ".pi/settings.json": JSON.stringify({ ttsr: { disabledRules: [" b ", 3, ""] } }),
    });
    await writeTree(world.agentDir, { "settings.json": JSON.stringify({ ttsr: { disabledRules: ["a"] } }) });
    const result = await loadRules({ cwd: world.cwd, home: world.home, agentDir: world.agentDir, parseStore: false });
    expect(result.rules.map((r) => r.name)).toEqual(["a"]);
    expect(result.disabledRules).toEqual(["b"]);
  });
});

describe("pi 1.6's project trust", () => {
  it("loadRules({ projectTrusted: false }) (what pi-ttsr passes) keeps the user's lists and ignores the project's", async () => {
    await writeTree(world.cwd, {
      ".pi/rules/a.md": "---\nalwaysApply: true\n---\nA.",
      ".pi/rules/b.md": "---\nalwaysApply: true\n---\nB.",
      ".pi/rules/c.md": "---\nalwaysApply: true\n---\nC.",
      ".pi/settings.json": JSON.stringify({ ttsr: { disabledRules: ["b"] }, rulebook: { disabledRules: ["c"] } }),
    });
    await writeTree(world.agentDir, { "settings.json": JSON.stringify({ ttsr: { disabledRules: ["a"] } }) });
    const where = { cwd: world.cwd, home: world.home, agentDir: world.agentDir, parseStore: false as const };
    const untrusted = await loadRules({ ...where, projectTrusted: false });
    expect(untrusted.rules.map((r) => r.name)).toEqual(["b", "c"]);
    expect(untrusted.disabledRules).toEqual(["a"]);
    expect(untrusted.warnings.map((w) => [w.kind, w.key, w.message])).toEqual([
      [
        "settings",
        "rulebook, ttsr.disabledRules",
        `${join(world.cwd, ".pi", "settings.json")}: rulebook, ttsr.disabledRules: ignored: pi does not trust this project (trust it with /trust, or --approve for one run)`,
      ],
    ]);
    const trusted = await loadRules(where);
    expect(trusted.rules.map((r) => r.name)).toEqual(["a"]);
    expect(trusted.warnings).toEqual([]);
  });
});

describe("run from the home folder, the user's rule folders are read once, as the user's", () => {
  const userRules = async (home: string) => {
    await writeTree(home, {
      ".claude/rules/claude-rule.md": "---\ndescription: C\n---\nC.",
      ".cursor/rules/cursor-rule.mdc": "---\ndescription: K\n---\nK.",
      ".pi/agent/rules/pi-rule.md": "---\ndescription: P\n---\nP.",
    });
  };
  const summary = (result: Awaited<ReturnType<typeof loadRules>>) =>
    result.rules.map((r) => `${r.name} ${r.source.provider} ${r.source.scope}`);
  const EXPECTED = ["pi-rule native user", "cursor-rule cursor user", "claude-rule claude user"];

  it("cwd = home: ~/.claude/rules and ~/.cursor/rules are user rules, not project rules", async () => {
    await userRules(world.home);
    const result = await loadRules({ cwd: world.home, home: world.home, parseStore: false });
    expect(summary(result)).toEqual(EXPECTED);
    expect(result.shadowed).toEqual([]);
    expect(result.stats.files).toBe(3);
    const list = await cli("list", "--cwd", world.home, "--home", world.home);
    expect(list.out).not.toMatch(/project/);
  });

  it("home given through a symlink (cwd is the real path): still each folder once", async () => {
    await userRules(world.home);
    const linked = join(world.root, "home-link");
    await symlink(world.home, linked);
    const result = await loadRules({ cwd: world.home, home: linked, parseStore: false });
    expect(summary(result)).toEqual(EXPECTED);
    expect(result.shadowed).toEqual([]);
  });

  it("cwd above home: ~/.cursor/rules is not picked up as a nested project folder", async () => {
    await userRules(world.home);
    const result = await loadRules({ cwd: world.root, home: world.home, parseStore: false });
    expect(summary(result)).toEqual(EXPECTED);
    expect(result.shadowed).toEqual([]);
  });
});

describe("globs that can never match are reported once, naming the file and the glob", () => {
  it("a trailing backslash, an unclosed extglob and a bare ! (besides unclosed [ and {)", async () => {
    await writeTree(world.cwd, {
      ".cursor/rules/globs.mdc": "---\ndescription: G\nglobs: ['src\\', '+(a|b', '!', 'src/**/*.ts']\n---\nG.",
    });
    const result = await loadRules({ cwd: world.cwd, home: world.home, agentDir: world.agentDir, parseStore: false });
    const path = join(world.cwd, ".cursor/rules/globs.mdc");
    expect(result.warnings.map((w) => [w.kind, w.path, w.key, w.message])).toEqual([
      [
        "glob-unmatchable",
        path,
        "globs",
        'glob "src\\\\" ends in a lone backslash, so it only matches that literal text: fix the glob',
      ],
      [
        "glob-unmatchable",
        path,
        "globs",
        'glob "+(a|b" has an unclosed "+(", so it only matches that literal text: fix the glob',
      ],
      [
        "glob-unmatchable",
        path,
        "globs",
        'glob "!" is a bare "!": it excludes nothing and matches nothing, so it only matches that literal text: fix the glob',
      ],
    ]);
    const report = doctorReport(result, DEFAULT_SETTINGS, { ttsrActive: true });
    expect(report.warnings.filter((w) => w.kind === "glob-unmatchable")).toHaveLength(3);
  });
});

describe("doctor lists every skipped file with the words a session uses", () => {
  it("each file the session warns about is a line of doctor's report, verbatim; doctor-only skips too", async () => {
    const t = keep(
      await createTestSession({
        files: {
          ".cursor/rules/bomb.mdc": ALIAS_BOMB,
          ".cursor/rules/binary.mdc": "---\n\u0000\u0001",
          ".cursor/rules/empty.mdc": "---\nalwaysApply: true\n---\n",
          ".cursor/rules/ok.mdc": "---\nalwaysApply: true\n---\nOK.",
          ".github/instructions/README.md": "Not an instruction file.",
        },
        extensions: [rulebook],
        model: { kind: "faux", responses: [fauxAssistantMessage("ok")] },
      }),
    );
    await t.prompt("hi");
    const skippedBySession = warnedIn(t).filter((m) => m.startsWith("skipped "));
    expect(skippedBySession.map((m) => m.slice(0, m.indexOf(":")).split("/").pop())).toEqual([
      "binary.mdc",
      "bomb.mdc",
      "empty.mdc",
    ]);
    expect(skippedBySession[1]).toBe(
      `skipped ${join(t.cwd, ".cursor/rules/bomb.mdc")}: frontmatter expands to more than 10000 values (nested YAML aliases?)`,
    );
    const where = ["--cwd", t.cwd, "--home", t.home, "--agent-dir", t.agentDir];
    const doctor = await cli("doctor", ...where);
    const lines = doctor.out.split("\n");
    for (const message of skippedBySession) expect(lines).toContain(`  [cursor] ${message}`);
    // what a session does not warn about (a file the tool itself would not read) is listed the same way
    expect(lines).toContain(
      `  [copilot] skipped ${join(t.cwd, ".github/instructions/README.md")}: not a rule file: Copilot reads only *.instructions.md in .github/instructions`,
    );
    const json = JSON.parse((await cli("doctor", "--json", ...where)).out) as {
      skipped: { message: string; sessionWarning: boolean }[];
    };
    expect(json.skipped.filter((s) => s.sessionWarning).map((s) => s.message)).toEqual(skippedBySession);
  });
});
