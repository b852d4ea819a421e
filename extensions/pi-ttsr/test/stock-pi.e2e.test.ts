import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CliHome,
  installStockPi,
  type ModelServer,
  prepareCliHome,
  runPi,
  STOCK_PI_VERSION,
  type StockPi,
  startModelServer,
} from "@pi-rails/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ruleFile } from "./helpers.ts";

/** Wall time is not what these tests measure: a loaded machine (2 cores, many runs) may take this long. */
const E2E_TIMEOUT_MS = 180_000;

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");

// The published pi (the testkit's STOCK_PI_VERSION, 1.6.0) as a user has it, without the pi-rails patch.
describe(`stock pi (published ${STOCK_PI_VERSION}, no patch)`, { timeout: E2E_TIMEOUT_MS }, () => {
  let stock: StockPi;
  let server: ModelServer | undefined;
  let home: CliHome | undefined;

  beforeAll(() => {
    stock = installStockPi({ shared: true });
  }, 300_000);
  afterAll(() => stock?.dispose(), E2E_TIMEOUT_MS);
  afterEach(async () => {
    await server?.close();
    home?.dispose();
  }, E2E_TIMEOUT_MS);

  it("says once what is degraded, and blocks a tool call whose streamed arguments break a rule", async () => {
    server = await startModelServer({
      script: [
        { toolCalls: [{ name: "write", arguments: { path: "src/a.ts", content: "let x: any = 1;\n" } }], chunkSize: 4 },
        { text: "Understood, I will not use any." },
      ],
    });
    home = prepareCliHome({
      server,
      files: {
        ".pi/rules/no-any.md": ruleFile({ condition: ":\\s*any\\b", scope: "tool:write(*.ts)" }, "Never use any."),
      },
    });
    const run = await runPi(["-e", PACKAGE_DIR, "-p", "write it"], { home, piCli: stock.cli });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split("\n").filter((l) => l.includes("pi-ttsr:") && /stock pi/i.test(l))).toHaveLength(1);
    expect(existsSync(join(home.cwd, "src", "a.ts"))).toBe(false);
    // The model gets the rule as the blocked call's result: the tool never ran.
    const toolResult = JSON.stringify((server.requests[1]?.messages ?? []).filter((m) => m.role === "tool"));
    expect(toolResult).toContain('<system-interrupt reason=\\"rule_violation\\" rule=\\"no-any\\"');
    expect(toolResult).toContain("Never use any.");
    expect(run.stdout).toContain("Understood, I will not use any.");
  });

  it("delivers a prose rule after the message instead of interrupting it", async () => {
    server = await startModelServer({
      script: [{ text: "Just eval(input) it.", chunkSize: 4 }, { text: "Correction: use JSON.parse." }],
    });
    home = prepareCliHome({
      server,
      files: { ".pi/rules/no-eval.md": ruleFile({ condition: "\\beval\\(" }, "Never call eval().") },
    });
    const run = await runPi(["-e", PACKAGE_DIR, "-p", "parse it"], { home, piCli: stock.cli });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests[0]!.closedEarly).toBe(false);
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]!.messages)).toContain("Never call eval().");
    expect(run.stdout).toContain("Correction: use JSON.parse.");
  });

  it("reads no ttsr settings from a project pi does not trust, and says so once", async () => {
    server = await startModelServer({
      script: [{ text: "Just eval(input) it.", chunkSize: 4 }, { text: "Correction: use JSON.parse." }],
    });
    home = prepareCliHome({
      server,
      // pi 1.6 asks before trusting a project; -p cannot ask, and "never" declines.
      settings: { defaultProjectTrust: "never" },
      projectSettings: { ttsr: { enabled: false } },
      files: { ".pi/rules/no-eval.md": ruleFile({ condition: "\\beval\\(" }, "Never call eval().") },
    });
    const run = await runPi(["-e", PACKAGE_DIR, "-p", "parse it"], { home, piCli: stock.cli });
    expect(run.code, run.stderr).toBe(0);
    const ignored = run.stderr.split("\n").filter((l) => l.includes("pi does not trust this project"));
    expect(ignored).toEqual([expect.stringContaining(`${join(home.cwd, ".pi", "settings.json")}: ttsr: ignored`)]);
    // The project's `enabled: false` did not count: the rule (a file, read either way) still fired.
    expect(JSON.stringify(server.requests[1]?.messages ?? [])).toContain("Never call eval().");
  });
});
