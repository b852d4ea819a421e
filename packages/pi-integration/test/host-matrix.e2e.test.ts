import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CliHome,
  closeAfterEach,
  emptyAssistantMessages,
  installStockPi,
  type ModelServer,
  prepareCliHome,
  resolvePiCli,
  runPi,
  type StockPi,
  startModelServer,
  startProviderServer,
  WIRE_FORMATS,
} from "@pi-rails/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ANY_FILE,
  alive,
  assistantStop,
  EVAL_ANSWER,
  gate,
  inject,
  NO_ANY_RULE,
  NO_EVAL_RULE,
  ROOT,
  RULEBOOK,
  STEERING,
  sessionEntries,
  steer,
  E2E_TIMEOUT_MS as TIMEOUT_MS,
  TTSR,
  textOf,
  texts,
} from "./scenario-kit.ts";

// The README's table "your own pi 1.6 | with @pi-rails/pi", row by row, on both hosts: the published pi 1.6.0 (no
// patch; the extensions on pi's public events) and the workspace's patched pi. Each scenario asserts what the row
// says both hosts do, and the cells where they differ. The README's rows and this file's scenarios are checked
// against each other, so the table cannot claim a row that no test runs on both.

type HostKind = "stock" | "patched";

/**
 * The README table's rows (their first cell) and where each is tested on both hosts: in this file ("matrix"), or in
 * the named test files, which run one scenario function with either pi.
 */
const ROWS: Record<string, string> = {
  "a TTSR rule on the answer's text": "matrix",
  "a TTSR rule on a tool call's arguments": "matrix",
  "`--mode json` while a rule interrupts": "matrix",
  "the TUI while a rule interrupts": "packages/pi-integration/test/tui-interrupt.e2e.test.ts",
  "from the violating delta to the retry's request (`pnpm bench`, median)": "packages/pi-integration/bench/hosts.mjs",
  "steering items": "matrix",
  "an `interrupt_immediate` item: last delta to the next request (`pnpm bench`, median)":
    "packages/pi-integration/bench/hosts.mjs",
  "cancel one running tool call": "matrix",
  "rulebook, cache-ttl-view (with pi's cache warming), start-up":
    "matrix (rulebook); extensions/cache-ttl-view/test/{pi-cli,stock-pi}.e2e.test.ts (cli-scenario.ts); extensions/pi-ttsr/bench/startup.mjs",
};

/** The first cells of the README table whose header names both pis. */
function readmeRows(): string[] {
  const lines = readFileSync(join(ROOT, "README.md"), "utf8").split("\n");
  const header = lines.findIndex((l) => l.startsWith("| | your own pi 1.6 |"));
  expect(header).toBeGreaterThan(0);
  const rows: string[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split("|")[1]!.trim());
  }
  return rows;
}

/** How each assistant message of the run's one session file ended. */
const assistantStops = (home: CliHome): string[] => sessionEntries(home).flatMap((e) => assistantStop(e) ?? []);

/** The lines of pi-ttsr's once-per-session stock-pi notice on stderr. */
const stockNotices = (stderr: string) =>
  stderr.split("\n").filter((l) => l.includes("pi-ttsr:") && /stock pi/i.test(l));

describe("the README's host table", () => {
  it("names, in each row, a behaviour tested on both hosts", () => {
    expect(readmeRows()).toEqual(Object.keys(ROWS));
  });
});

describe.each<HostKind>(["stock", "patched"])("%s pi 1.6", (kind) => {
  let stock: StockPi | undefined;
  let cli = "";
  const keep = closeAfterEach(afterEach);

  beforeAll(() => {
    if (kind === "stock") stock = installStockPi({ shared: true });
    cli = stock?.cli ?? resolvePiCli();
  }, 300_000);
  afterAll(() => stock?.dispose());

  const pi = (extension: string, prompt: string, home: CliHome) =>
    runPi(["-e", extension, "-p", prompt], { home, piCli: cli, timeoutMs: 120_000 });

  it(
    `${kind}: a TTSR rule on the answer's text stops it and the run goes on with the rule, without the partial`,
    async () => {
      const server = await startModelServer({
        script: [{ text: EVAL_ANSWER, chunkSize: 4 }, { text: "Use JSON.parse(input): it only parses data." }],
      }).then(keep);
      const home = keep(prepareCliHome({ server, files: NO_EVAL_RULE }));
      const run = await pi(TTSR, "parse it", home);
      expect(run.code, run.stderr).toBe(0);
      expect(server.requests).toHaveLength(2);
      const retried = JSON.stringify(server.requests[1]!.messages);
      expect(retried).toContain("Never call eval().");
      expect(retried).not.toContain("Just call eval");
      expect(run.stdout).toContain("Use JSON.parse(input)");
      expect(run.stdout).not.toContain("Just call eval");
      // The stream was cut at the match: the rest of the answer was never read.
      expect(server.requests[0]!.deltaTimes.length).toBeLessThan(Math.ceil(77 / 4));
      // Stock pi keeps an emptied entry that ended normally (its usage kept); the patched loop drops the attempt.
      expect(assistantStops(home)).toEqual(kind === "stock" ? ["stop (emptied)", "stop"] : ["stop"]);
      // no request carries an assistant message without content (strict providers refuse one)
      expect(emptyAssistantMessages(server.requests)).toEqual([]);
      // Stock pi says once what differs there; the patched pi has nothing to say.
      expect(stockNotices(run.stderr)).toHaveLength(kind === "stock" ? 1 : 0);
    },
    TIMEOUT_MS,
  );

  it(
    `${kind}: a TTSR rule on a tool call's arguments stops the call before it runs; the retry carries the rule, not the call`,
    async () => {
      const server = await startModelServer({
        script: [
          {
            toolCalls: [{ name: "write", arguments: { path: "src/a.ts", content: ANY_FILE } }],
            chunkSize: 4,
            delayMs: 2,
          },
          { text: "Understood, I will not use any." },
        ],
      }).then(keep);
      const home = keep(prepareCliHome({ server, files: NO_ANY_RULE }));
      const run = await pi(TTSR, "write it", home);
      expect(run.code, run.stderr).toBe(0);
      expect(existsSync(join(home.cwd, "src", "a.ts"))).toBe(false);
      expect(server.requests).toHaveLength(2);
      const retried = JSON.stringify(server.requests[1]!.messages);
      expect(retried).toContain("Never use any.");
      expect(retried).toContain('<system-interrupt reason=\\"rule_violation\\" rule=\\"no-any\\"');
      expect(retried).not.toContain("let x: any");
      expect(retried).not.toMatch(/"role":"tool"/);
      expect(run.stdout).toContain("Understood, I will not use any.");
      expect(assistantStops(home)).toEqual(kind === "stock" ? ["stop (emptied)", "stop"] : ["stop"]);
      // no request carries an assistant message without content (strict providers refuse one)
      expect(emptyAssistantMessages(server.requests)).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it(
    `${kind}: \`--mode json\` while a rule interrupts: no error event; the attempt ends emptied (stock) or in stream_abort (patched)`,
    async () => {
      // No delay between deltas: pi may have read the whole answer before the abort takes effect.
      const server = await startModelServer({
        script: [{ text: EVAL_ANSWER, chunkSize: 4 }, { text: "Use JSON.parse(input): it only parses data." }],
      }).then(keep);
      const home = keep(prepareCliHome({ server, files: NO_EVAL_RULE }));
      const run = await runPi(["-e", TTSR, "--mode", "json", "parse it"], { home, piCli: cli, timeoutMs: 120_000 });
      expect(run.code, run.stderr).toBe(0);
      type JsonEvent = { type: string; message?: { role?: string; stopReason?: string; content?: unknown[] } };
      const events = run.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as JsonEvent);
      expect(run.stdout).not.toMatch(/Operation aborted|Request was aborted|"errorMessage"/);
      const ends = events
        .filter((e) => e.type === "message_end" && e.message?.role === "assistant")
        .map((e) => `${e.message!.stopReason} ${textOf(e.message!.content)}`.trim());
      // The violating answer never ends as itself: stock pi ends it emptied; the patched loop ends it in stream_abort.
      expect(ends).toEqual(
        kind === "stock"
          ? ["stop", "stop Use JSON.parse(input): it only parses data."]
          : ["stop Use JSON.parse(input): it only parses data."],
      );
      expect(events.filter((e) => e.type === "stream_abort")).toHaveLength(kind === "stock" ? 0 : 1);
      expect(JSON.stringify(server.requests[1]!.messages)).not.toContain("Just call eval");
    },
    TIMEOUT_MS,
  );

  it(
    `${kind}: steering items: a finish_step item waits for the end of the step, dedupe and revoke apply until then`,
    async () => {
      const { held, open } = gate();
      const server: ModelServer = await startModelServer({
        script: async (_request, index) => {
          if (index > 0) return { text: "saw the kept item" };
          await held;
          return { text: "Here is my answer." };
        },
      }).then(keep);
      const home = keep(prepareCliHome({ server }));
      const run = pi(STEERING, "answer", home);
      await server.waitForRequests(1, 60_000);
      const revoked = await inject(home, ["REVOKED-ITEM", "--mode", "finish_step"]);
      // A second item with the same dedupe key replaces the first while both wait.
      await inject(home, ["STALE-ITEM", "--mode", "finish_step", "--dedupe-key", "k"]);
      await inject(home, ["KEPT-ITEM", "--mode", "finish_step", "--dedupe-key", "k"]);
      expect((await steer(home, ["revoke", String(revoked.id), "--json"])).code).toBe(0);
      open();
      const result = await run;
      expect(result.code, result.stderr).toBe(0);
      expect(server.requests).toHaveLength(2);
      expect(texts(server.requests[1]!.messages).slice(-2)).toEqual(["Here is my answer.", "KEPT-ITEM"]);
      const all = JSON.stringify(server.requests.map((r) => r.messages));
      expect(all).not.toContain("REVOKED-ITEM");
      expect(all).not.toContain("STALE-ITEM");
      expect(result.stdout).toContain("saw the kept item");
    },
    TIMEOUT_MS,
  );

  it.each(WIRE_FORMATS)(
    `${kind}: steering items: %s: interrupt_immediate keeps a pending tool batch from running; the next request is valid`,
    async (format) => {
      const { held, open } = gate();
      const ran = join(mkdtempSync(join(tmpdir(), "matrix-skip-")), "ran");
      const server = await startProviderServer(format, {
        strict: true,
        script: async (_request, index) => {
          if (index > 0) return { text: "Stopped before touching anything." };
          await held;
          return { toolCalls: [{ id: "touch", name: "bash", arguments: { command: `touch ${ran}` } }] };
        },
      }).then(keep);
      const home = keep(prepareCliHome({ server }));
      const run = pi(STEERING, "touch the file", home);
      await server.waitForRequests(1, 60_000);
      await inject(home, ["STOP-BEFORE-TOOLS", "--mode", "interrupt_immediate"]);
      open();
      const result = await run;
      expect(result.code, result.stderr).toBe(0);
      expect(existsSync(ran)).toBe(false);
      expect(server.requests.map((r) => r.rejected?.message ?? "accepted")).toEqual(["accepted", "accepted"]);
      const sent = JSON.stringify(server.requests[1]!.messages);
      expect(sent).toContain("was not dispatched");
      expect(sent.indexOf("STOP-BEFORE-TOOLS")).toBeGreaterThan(sent.indexOf("was not dispatched"));
      expect(result.stdout).toContain("Stopped before touching anything.");
    },
    TIMEOUT_MS,
  );

  it(
    `${kind}: cancel one running tool call: the cancelled bash stops, its sibling finishes`,
    async () => {
      const flag = join(mkdtempSync(join(tmpdir(), "matrix-nap-")), "done");
      const nap = `echo $$ > ${flag}.pid; for i in $(seq 600); do [ -e ${flag} ] && break; sleep 0.1; done; echo NAP-DONE`;
      const sibling = `for i in $(seq 600); do [ -e ${flag} ] && break; sleep 0.1; done; echo SIBLING-DONE`;
      const server = await startModelServer({
        script: [
          {
            toolCalls: [
              { id: "nap", name: "bash", arguments: { command: nap } },
              { id: "sibling", name: "bash", arguments: { command: sibling } },
            ],
          },
          { text: "nap over" },
          { text: "done" },
        ],
      }).then(keep);
      const home = keep(prepareCliHome({ server }));
      const run = pi(STEERING, "take a nap", home);
      let inFlight: string[] = [];
      for (const deadline = Date.now() + 60_000; inFlight.length < 2 && Date.now() < deadline; ) {
        const status = await steer(home, ["status", "--json"]);
        if (status.code === 0)
          inFlight = (JSON.parse(status.stdout) as { toolCallsInFlight: { callId: string }[] }).toolCallsInFlight.map(
            (c) => c.callId,
          );
        if (inFlight.length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(inFlight).toEqual(["nap", "sibling"]);
      const cancel = await steer(home, ["cancel", "nap", "--reason", "user clicked stop", "--json"]);
      expect(cancel.code, cancel.stderr).toBe(0);
      // The cancelled shell is gone (pi's bash kills its tree on the call's signal) before the sibling is let go.
      const napPid = Number(readFileSync(`${flag}.pid`, "utf8").trim());
      await expect.poll(() => alive(napPid), { timeout: 10_000, interval: 50 }).toBe(false);
      writeFileSync(flag, "");
      const result = await run;
      expect(result.code, result.stderr).toBe(0);
      const results = (server.requests[1]!.messages as { role: string; content: unknown; tool_call_id?: string }[])
        .filter((m) => m.role === "tool")
        .map((m) => [m.tool_call_id, textOf(m.content).trim()]);
      expect(results).toEqual([
        ["nap", "Tool call nap (bash) was cancelled by the host: user clicked stop"],
        ["sibling", "SIBLING-DONE"],
      ]);
    },
    TIMEOUT_MS,
  );

  it(
    `${kind}: rulebook: an always-on rule is in the system prompt, a described one is listed to read on demand`,
    async () => {
      const server = await startModelServer({ script: [{ text: "ok" }] }).then(keep);
      const home = keep(
        prepareCliHome({
          server,
          files: {
            ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\nALWAYS-RULE-BODY: use tabs.\n",
            ".cursor/rules/on-demand.mdc": "---\ndescription: How releases are cut\n---\nON-DEMAND-RULE-BODY\n",
          },
        }),
      );
      const run = await pi(RULEBOOK, "hi", home);
      expect(run.code, run.stderr).toBe(0);
      const system = JSON.stringify(
        server.requests[0]!.messages.filter((m) => (m as { role: string }).role === "system"),
      );
      expect(system).toContain("ALWAYS-RULE-BODY: use tabs.");
      expect(system).toContain("How releases are cut");
      expect(system).not.toContain("ON-DEMAND-RULE-BODY");
    },
    TIMEOUT_MS,
  );
});

describe("README rows", () => {
  it("are backed by files that exist", () => {
    for (const where of Object.values(ROWS)) {
      for (const path of where.matchAll(/(?:packages|extensions)\/[\w./{},-]+/g)) {
        for (const expanded of expand(path[0])) expect(existsSync(join(ROOT, expanded)), expanded).toBe(true);
      }
    }
  });
});

/** `a/{b,c}.ts` as `a/b.ts` and `a/c.ts`. */
function expand(path: string): string[] {
  const m = /\{([^}]+)\}/.exec(path);
  if (!m) return [path.replace(/[.;,]$/, "")];
  return m[1]!.split(",").flatMap((alt) => expand(path.replace(m[0], alt)));
}
