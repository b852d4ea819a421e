import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { closeAfterEach, prepareCliHome, runPi, startModelServer } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { ruleFile } from "./helpers.ts";
import { rpcSession } from "./rpc.ts";

// What a user is told by pi-ttsr and rulebook together, in the real pi CLI: one message per mistake, a rule broken
// before a /reload said once after it, nothing said again by a reload, and a settings file pi cannot load left to pi.

/** Wall time is not what these tests measure: a loaded machine may take this long. */
const E2E_TIMEOUT_MS = 240_000;
const TTSR_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const RULEBOOK_DIR = dirname(createRequire(import.meta.url).resolve("@pi-rails/rulebook/package.json"));
const RELOAD_NOW = join(TTSR_DIR, "test", "fixtures", "reload-now.ts");
const BOTH = [TTSR_DIR, RULEBOOK_DIR];

const GOOD = ruleFile({ description: "no eval", condition: "\\beval\\(" }, "Never call eval().");
const BAD_REGEX = ruleFile({ description: "no TODO fixes", condition: "TODO((fix" }, "Fix it now, no TODO(fix).");
const count = (texts: readonly string[], needle: string) => texts.filter((t) => t.includes(needle)).length;

const keep = closeAfterEach(afterEach);

/** A CLI home on a loopback model answering `ok <n>`, both closed after the test. */
async function loopbackHome(files: Record<string, string>, projectSettings?: Record<string, unknown>) {
  const server = keep(await startModelServer({ script: (_request, index) => ({ text: `ok ${index}` }) }));
  return { server, home: keep(prepareCliHome({ server, files, ...(projectSettings ? { projectSettings } : {}) })) };
}

describe("notices across /reload (real pi CLI, RPC mode, pi-ttsr + rulebook)", { timeout: E2E_TIMEOUT_MS }, () => {
  it("a rule broken before /reload is announced once, by one extension; a reload repeats nothing", async () => {
    const { server, home: h } = await loopbackHome({ ".pi/rules/good.md": GOOD }, { rulebook: { typo: 1 } });
    const run = await rpcSession(
      h,
      [...BOTH, RELOAD_NOW],
      [
        { type: "prompt", message: "one" },
        () => writeFileSync(join(h.cwd, ".pi", "rules", "bad-regex.md"), BAD_REGEX),
        { type: "prompt", message: "/reload-now" },
        { type: "prompt", message: "two" },
        { type: "prompt", message: "/reload-now" },
        { type: "prompt", message: "three" },
        { type: "prompt", message: "/rulebook" },
      ],
    );
    const warnings = run.notices.filter((n) => n.type === "warning").map((n) => n.message);
    // the broken rule: one message, naming the file and what is wrong
    expect(count(warnings, "bad-regex.md"), warnings.join("\n---\n")).toBe(1);
    expect(warnings.find((w) => w.includes("bad-regex.md"))).toContain(
      "not loaded: no stream condition can be used: /TODO((fix/: invalid regex: Unterminated group",
    );
    // rulebook's own warning was said at the start and not again by either reload
    expect(count(warnings, "rulebook.typo: unknown key"), warnings.join("\n---\n")).toBe(1);
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests[2]!.messages)).not.toContain("no TODO(fix)");
    // `/rulebook` gives pi-ttsr's answer
    const doctor = run.notices.filter((n) => n.type === "info").at(-1)?.message ?? "";
    expect(doctor).toMatch(/bad-regex {2}\[neither \(not delivered\)\]/);
    expect(doctor).toMatch(/good {2}\[ttsr /);
  });

  it("/rulebook says 'not delivered' for a rule only pi-ttsr's compiler refuses, with pi-ttsr's reason", async () => {
    const redos = ruleFile({ description: "catastrophic", condition: "(a+)+$" }, "Exponential.");
    const { home: h } = await loopbackHome({ ".pi/rules/good.md": GOOD, ".pi/rules/redos.md": redos });
    const run = await rpcSession(h, BOTH, [{ type: "prompt", message: "/rulebook" }]);
    const doctor = run.notices.filter((n) => n.type === "info").at(-1)?.message ?? "";
    expect(doctor).toMatch(/redos {2}\[neither \(not delivered\)\]/);
    expect(doctor).toMatch(/not enforced: pi-ttsr does not load it \(no condition compiled.*exponential backtracking/s);
  });
});

describe("a settings file pi cannot load (real pi CLI, pi -p)", { timeout: E2E_TIMEOUT_MS }, () => {
  it("a trailing comma in .pi/settings.json: pi says so; rulebook and pi-ttsr add nothing", async () => {
    const { home: h } = await loopbackHome({ ".pi/rules/good.md": GOOD });
    const file = join(h.cwd, ".pi", "settings.json");
    writeFileSync(file, '{ "rulebook": { "globAttach": false }, "ttsr": { "interruptMode": "never" }, }\n');
    const run = await runPi([...BOTH.flatMap((e) => ["-e", e]), "-p", "hello"], { home: h, timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(file); // pi's own message
    expect(run.stderr).not.toMatch(/(rulebook|pi-ttsr):.*settings\.json/);
    expect(run.stderr).not.toContain("not valid JSON");
  });

  it("a bad key of their own sections is said once each", async () => {
    const { home: h } = await loopbackHome(
      { ".pi/rules/good.md": GOOD },
      { rulebook: { typo: 1 }, ttsr: { interruptMod: "never" } },
    );
    const run = await runPi([...BOTH.flatMap((e) => ["-e", e]), "-p", "hello"], { home: h, timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split("rulebook.typo: unknown key").length - 1).toBe(1);
    expect(run.stderr.split("ttsr.interruptMod: unknown key").length - 1).toBe(1);
  });
});
