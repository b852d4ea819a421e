import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// "Is this rule enforced?" has one answer: rulebook's doctor, show and list give the one pi-ttsr acts on.
// Both real executables (bin/ over the built dist), on the same rule files.

/** Wall time is not what these tests measure: a loaded machine may take this long. */
const E2E_TIMEOUT_MS = 180_000;
const TTSR = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "ttsr.mjs");
const RULEBOOK = join(
  dirname(createRequire(import.meta.url).resolve("@pi-rails/rulebook/package.json")),
  "bin",
  "rulebook.mjs",
);
const run = promisify(execFile);

async function cli(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await run(process.execPath, [bin, ...args], { cwd, env });
  return stdout;
}

describe("rulebook and pi-ttsr agree on which stream rules are enforced", { timeout: E2E_TIMEOUT_MS }, () => {
  it("a broken regex and a broken YAML list are 'not delivered' in doctor, show and list, as in ttsr list", async () => {
    const root = mkdtempSync(join(tmpdir(), "ttsr-agree-"));
    const cwd = join(root, "p");
    mkdirSync(join(cwd, ".pi", "rules"), { recursive: true });
    const rule = (name: string, text: string) => writeFileSync(join(cwd, ".pi", "rules", name), text);
    rule("bad-regex.md", '---\ndescription: no TODO fixes\ncondition: "TODO((fix"\n---\nWrite the fix now.\n');
    rule("bad-yaml.md", '---\ndescription: no console.log\ncondition: ["console\\\\.log",\n---\nUse the logger.\n');
    rule("good.md", '---\ndescription: no eval\ncondition: "\\\\beval\\\\("\n---\nNever call eval.\n');
    const env = { ...process.env, HOME: root, PI_CODING_AGENT_DIR: join(root, "agent") };

    const ttsr = JSON.parse(await cli(TTSR, ["list", "--json"], cwd, env)) as {
      rules: { name: string; provider: string }[];
      skipped: { name: string; reason: string }[];
    };
    const watched = ttsr.rules.filter((r) => r.provider === "native").map((r) => r.name);
    expect(watched).toEqual(["good"]);
    expect(ttsr.skipped.map((s) => s.name).sort()).toEqual(["bad-regex", "bad-yaml"]);

    const doctor = JSON.parse(await cli(RULEBOOK, ["doctor", "--json"], cwd, env)) as {
      rules: { name: string; bucket: string }[];
      notDelivered: { name: string; reason: string }[];
    };
    expect(doctor.rules.filter((r) => r.bucket === "ttsr").map((r) => r.name)).toEqual(watched);
    expect(doctor.notDelivered.map((n) => n.name).sort()).toEqual(["bad-regex", "bad-yaml"]);
    // the same reason, word for word
    for (const skipped of ttsr.skipped)
      expect(doctor.notDelivered.find((n) => n.name === skipped.name)?.reason).toContain(skipped.reason);
    expect(ttsr.skipped.find((s) => s.name === "bad-regex")?.reason).toBe(
      "no stream condition can be used: /TODO((fix/: invalid regex: Unterminated group",
    );

    const text = await cli(RULEBOOK, ["doctor"], cwd, env);
    expect(text).toMatch(/bad-regex {2}\[neither \(not delivered\)\]/);
    expect(text).not.toMatch(/bad-(regex|yaml) {2}\[ttsr/);
    const show = await cli(RULEBOOK, ["show", "bad-regex"], cwd, env);
    expect(show).toContain("bucket:      neither (not delivered)");
    expect(show).toContain("why:         not enforced: pi-ttsr does not load it (no stream condition can be used");
    const list = await cli(RULEBOOK, ["list"], cwd, env);
    const bucketOf = (name: string) =>
      list
        .split("\n")
        .find((l) => l.startsWith(`${name} `))
        ?.split(/\s{2,}/)[1];
    expect([bucketOf("bad-regex"), bucketOf("bad-yaml"), bucketOf("good")]).toEqual(["neither", "neither", "ttsr"]);
    expect(text).toContain("Stream conditions checked by rulebook (no pi-ttsr installed next to it)");
  });

  it("installed side by side (as pi install puts them), rulebook doctor asks pi-ttsr: a pattern only its compiler refuses", async () => {
    const root = mkdtempSync(join(tmpdir(), "ttsr-agree-"));
    const cwd = join(root, "p");
    mkdirSync(join(cwd, ".pi", "rules"), { recursive: true });
    writeFileSync(
      join(cwd, ".pi", "rules", "redos.md"),
      '---\ndescription: catastrophic\ncondition: "(a+)+$"\n---\nx\n',
    );
    writeFileSync(join(cwd, ".pi", "rules", "good.md"), '---\ndescription: no eval\ncondition: "eval\\\\("\n---\nx\n');
    // one node_modules folder holding both packages, as <agent dir>/npm/node_modules does after `pi install`
    const scope = join(root, "npm", "node_modules", "@pi-rails");
    mkdirSync(scope, { recursive: true });
    symlinkSync(dirname(RULEBOOK).replace(/[\\/]bin$/, ""), join(scope, "rulebook"));
    symlinkSync(join(dirname(TTSR), ".."), join(scope, "pi-ttsr"));
    const env = { ...process.env, HOME: root, PI_CODING_AGENT_DIR: join(root, "agent") };
    const bin = join(scope, "rulebook", "bin", "rulebook.mjs");
    const args = ["--preserve-symlinks", "--preserve-symlinks-main", bin, "doctor", "--json"];
    const { stdout } = await run(process.execPath, args, { cwd, env });
    const doctor = JSON.parse(stdout) as {
      rules: { name: string; bucket: string }[];
      notDelivered: { name: string; reason: string }[];
      streamConditionsCheckedBy: string;
    };
    expect(doctor.streamConditionsCheckedBy).toMatch(/^pi-ttsr \S+ \(/);
    expect(doctor.rules.find((r) => r.name === "good")?.bucket).toBe("ttsr");
    const ttsr = JSON.parse(await cli(TTSR, ["list", "--json"], cwd, env)) as {
      skipped: { name: string; reason: string }[];
    };
    const refused = ttsr.skipped.find((s) => s.name === "redos")?.reason;
    expect(refused).toMatch(/exponential backtracking/);
    expect(doctor.notDelivered).toEqual([
      {
        name: "redos",
        path: join(cwd, ".pi", "rules", "redos.md"),
        reason: `not enforced: pi-ttsr does not load it (${refused})`,
      },
    ]);
  });
});
