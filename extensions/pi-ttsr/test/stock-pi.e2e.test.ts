import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CliHome,
  closeAfterEach,
  emptyAssistantMessages,
  installStockPi,
  prepareCliHome,
  readSessionFile,
  runPi,
  STOCK_PI_VERSION,
  type StockPi,
  startModelServer,
  startProviderServer,
} from "@pi-rails/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ruleFile } from "./helpers.ts";

/**
 * How each assistant message of the run's one session file ended: its stopReason, "(emptied)" for one pi-ttsr
 * replaced after stopping it for a rule (no content; its usage record kept), and its error message if it has one.
 */
function assistantStops(home: CliHome): string[] {
  const sessions = join(home.agentDir, "sessions");
  const files = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
  expect(files).toHaveLength(1);
  type Message = { role?: string; stopReason?: string; content?: unknown[]; usage?: unknown; errorMessage?: string };
  const entries = readSessionFile(join(sessions, files[0]!)) as { message?: Message }[];
  return entries.flatMap(({ message: m }) => {
    if (m?.role !== "assistant") return [];
    const emptied = m.content?.length === 0 && m.usage !== undefined;
    return [`${m.stopReason ?? ""}${emptied ? " (emptied)" : ""}${m.errorMessage ? ` (${m.errorMessage})` : ""}`];
  });
}

/** The entries of the run's one session file. */
function sessionEntries(home: CliHome): { type: string; customType?: string; data?: unknown }[] {
  const sessions = join(home.agentDir, "sessions");
  const files = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
  expect(files).toHaveLength(1);
  return readSessionFile(join(sessions, files[0]!)) as never;
}

/** Wall time is not what these tests measure: a loaded machine (2 cores, many runs) may take this long. */
const E2E_TIMEOUT_MS = 180_000;

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const FOLLOW_UP_MIDSTREAM = join(PACKAGE_DIR, "test", "fixtures", "follow-up-midstream.ts");

// The published pi (the testkit's STOCK_PI_VERSION, 1.6.0) as a user has it, without the pi-rails patch.
describe(`stock pi (published ${STOCK_PI_VERSION}, no patch)`, { timeout: E2E_TIMEOUT_MS }, () => {
  let stock: StockPi;
  const keep = closeAfterEach(afterEach);

  beforeAll(() => {
    stock = installStockPi({ shared: true });
  }, 300_000);
  afterAll(() => stock?.dispose(), E2E_TIMEOUT_MS);

  // The interrupt of a prose answer and of a streamed tool call, the notice said once, and what the session keeps:
  // packages/pi-integration/test/host-matrix.e2e.test.ts runs them on this pi and on the patched one.

  it("contextMode keep: the retry carries the partial's text before the rule, and the session keeps it", async () => {
    const server = await startModelServer({
      script: [
        { text: "Sure. Just call eval(input) and return the result; that is the quickest way.", chunkSize: 4 },
        { text: "Use JSON.parse(input): it only parses data." },
      ],
    }).then(keep);
    const home = keep(
      prepareCliHome({
        server,
        projectSettings: { ttsr: { contextMode: "keep" } },
        files: { ".pi/rules/no-eval.md": ruleFile({ condition: "\\beval\\(" }, "Never call eval().") },
      }),
    );
    const run = await runPi(["-e", PACKAGE_DIR, "-p", "parse it"], { home, piCli: stock.cli });
    expect(run.code, run.stderr).toBe(0);
    expect(assistantStops(home)).toEqual(["stop", "stop"]);
    const retried = JSON.stringify(server.requests[1]!.messages);
    expect(retried).toContain("Sure. Just call eval(");
    expect(retried.indexOf("Sure. Just call eval(")).toBeLessThan(retried.indexOf("Never call eval()."));
    expect(retried).toContain("Your partial output is kept above");
    expect(run.stdout).toContain("Use JSON.parse(input)");
  });

  it("a message the user queued while the answer streamed: the interrupt's cost is the stopped attempt's, not that of the turn pi then starts and aborts for the queued message", async () => {
    // Anthropic reports the input tokens when the message starts: an attempt stopped mid-stream has a usage.
    const server = await startProviderServer("anthropic-messages", {
      script: [
        { text: "Sure. Just call eval(input) and return the result; that is the quickest way.", chunkSize: 4 },
        { text: "Use JSON.parse(input): it only parses data." },
      ],
    }).then(keep);
    const home = keep(
      prepareCliHome({
        server,
        files: { ".pi/rules/no-eval.md": ruleFile({ condition: "\\beval\\(" }, "Never call eval().") },
      }),
    );
    const run = await runPi(["-e", PACKAGE_DIR, "-e", FOLLOW_UP_MIDSTREAM, "-p", "parse it"], {
      home,
      piCli: stock.cli,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    const retried = JSON.stringify(server.requests[1]!.messages);
    expect(retried).toContain("QUEUED-BY-THE-USER");
    expect(retried).toContain("Never call eval().");
    expect(retried).not.toContain("Just call eval");
    // pi drained its queue into the aborted run and started a turn it aborted before any request (its own emptied
    // message); the cost recorded is the first attempt's, which the provider reported.
    const costs = sessionEntries(home).filter((e) => e.type === "custom" && e.customType === "ttsr:interrupt-cost");
    expect(costs).toHaveLength(1);
    expect((costs[0] as { data: { usage: { input: number } } }).data.usage.input).toBeGreaterThan(0);
  });

  it("past three interrupts in a row (each by another rule: a rule fires once), the next follows the message instead", async () => {
    const names = ["alpha", "beta", "gamma", "delta"];
    const says = (name: string) => ({
      text: `Call ${name}Call(input) now, it is the quickest way to do it.`,
      chunkSize: 4,
    });
    const server = await startModelServer({
      script: [...names.map(says), { text: "Correction: no such calls." }],
    }).then(keep);
    const files = Object.fromEntries(
      names.map((name) => [
        `.pi/rules/no-${name}.md`,
        ruleFile({ condition: `\\b${name}Call\\(` }, `Never call ${name}Call().`),
      ]),
    );
    const home = keep(prepareCliHome({ server, files }));
    const run = await runPi(["-e", PACKAGE_DIR, "-p", "do it"], { home, piCli: stock.cli });
    expect(run.code, run.stderr).toBe(0);
    expect(assistantStops(home)).toEqual(["stop (emptied)", "stop (emptied)", "stop (emptied)", "stop", "stop"]);
    expect(server.requests).toHaveLength(5);
    // no request carries an assistant message without content (strict providers refuse one)
    expect(emptyAssistantMessages(server.requests)).toEqual([]);
    // The fourth rule was not interrupted for: it went after that message, and the model answered it.
    expect(JSON.stringify(server.requests[4]!.messages)).toContain("Never call deltaCall().");
    expect(run.stdout).toContain("Correction: no such calls.");
  });

  it("reads no ttsr settings from a project pi does not trust, and says so once", async () => {
    const server = await startModelServer({
      script: [{ text: "Just eval(input) it.", chunkSize: 4 }, { text: "Correction: use JSON.parse." }],
    }).then(keep);
    const home = keep(
      prepareCliHome({
        server,
        // pi 1.6 asks before trusting a project; -p cannot ask, and "never" declines.
        settings: { defaultProjectTrust: "never" },
        projectSettings: { ttsr: { enabled: false } },
        files: { ".pi/rules/no-eval.md": ruleFile({ condition: "\\beval\\(" }, "Never call eval().") },
      }),
    );
    const run = await runPi(["-e", PACKAGE_DIR, "-p", "parse it"], { home, piCli: stock.cli });
    expect(run.code, run.stderr).toBe(0);
    const ignored = run.stderr.split("\n").filter((l) => l.includes("pi does not trust this project"));
    expect(ignored).toEqual([expect.stringContaining(`${join(home.cwd, ".pi", "settings.json")}: ttsr: ignored`)]);
    // The project's `enabled: false` did not count: the rule (a file, read either way) still fired.
    expect(JSON.stringify(server.requests[1]?.messages ?? [])).toContain("Never call eval().");
  });
});
