import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CliHome,
  closeAfterEach,
  installStockPi,
  prepareCliHome,
  runPi,
  type StockPi,
  startModelServer,
} from "@pi-rails/testkit";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { PACKAGE_DIR, runSteer } from "./steer-cli.ts";

// An item is handed to pi only once its settle is on disk: when that write fails, the item stays queued (the user is
// told once) and a later process of the session delivers it, once. The write fails for real: the running pi's file
// size limit (RLIMIT_FSIZE, set with util-linux's prlimit) is lowered to leave room for one more accept and no
// settle, so the journal's next write gets EFBIG (pi is told to ignore SIGXFSZ, as a full disk sends no signal).

const keep = closeAfterEach(afterEach);
const hasPrlimit = (() => {
  try {
    execFileSync("prlimit", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** Two items whose accept lines have the same length (ids, content and source of the same sizes), and a large one. */
const PROBE = { id: "item-p", content: `ITEM-P ${"p".repeat(2048)}` };
const HELD = { id: "item-b", content: `ITEM-B ${"b".repeat(2048)}` };
const PAD = { id: "item-pad", content: `ITEM-PAD ${"d".repeat(100 * 1024)}` };
const NOTICE = "steering items stay queued, not handed to pi";
const IGNORE_SIGXFSZ = join(PACKAGE_DIR, "test", "fixtures", "ignore-sigxfsz.ts");

const count = (text: string, needle: string) => text.split(needle).length - 1;

function steeringFiles(home: CliHome): { pid: number; journal: string } {
  const dir = join(home.agentDir, "steering");
  const info = readdirSync(dir).find((name) => name.endsWith(".json"))!;
  const journal = readdirSync(dir).find((name) => name.endsWith(".journal"))!;
  return {
    pid: (JSON.parse(readFileSync(join(dir, info), "utf8")) as { pid: number }).pid,
    journal: join(dir, journal),
  };
}

async function inject(home: CliHome, item: { id: string; content: string }) {
  const run = await runSteer(["inject", item.content, "--mode", "finish_step", "--id", item.id, "--json"], home);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { id: string; handedToPi?: boolean };
}

/** A bash command that waits (at most 60 s) until the test creates `flag`: items then arrive during a run. */
const waitFor = (flag: string) => `for i in $(seq 600); do [ -e ${flag} ] && break; sleep 0.1; done; echo waited`;

let stock: StockPi | undefined;
afterAll(() => stock?.dispose());

describe.skipIf(!hasPrlimit)("a settle that cannot be written: the item is not handed to pi (real pi CLI)", () => {
  for (const host of ["patched", "stock"] as const) {
    it(`${host} pi: the item stays queued, said once, and the next pi of the session delivers it once`, async () => {
      const flags = mkdtempSync(join(tmpdir(), "settle-flag-"));
      const server = keep(
        await startModelServer({
          // Requests 0 and 2 (the first of the first two runs) call bash, which waits for that run's flag.
          script: (_request, index) =>
            index === 0 || index === 2
              ? {
                  toolCalls: [
                    { id: `wait${index}`, name: "bash", arguments: { command: waitFor(join(flags, `${index}`)) } },
                  ],
                }
              : { text: `answer ${index}` },
        }),
      );
      const home = keep(prepareCliHome({ server }));
      const patched = { home, timeoutMs: 120_000 };
      if (host === "stock") stock ??= installStockPi();
      const options = stock && host === "stock" ? { ...patched, piCli: stock.cli } : patched;

      // A run of the patched pi pads the session's journal with an item revoked before its seam: the journal is then
      // far larger than the session file, so the limit below stops only the journal's writes.
      const zero = runPi(["-e", PACKAGE_DIR, "-p", "zero"], patched);
      await server.waitForRequests(1, 60_000);
      await inject(home, PAD);
      await runSteer(["revoke", PAD.id], home);
      writeFileSync(join(flags, "0"), "");
      expect((await zero).code).toBe(0);

      // V8's code cache, which pi writes as it exits, would pass the limit too (after the signal is no longer ignored).
      const limited = { ...options, env: { NODE_DISABLE_COMPILE_CACHE: "1" } };
      const first = runPi(["-e", PACKAGE_DIR, "-e", IGNORE_SIGXFSZ, "-p", "--continue", "first"], limited);
      await server.waitForRequests(3, 60_000);
      // The probe's accept shows the length of an accept line; the limit leaves room for the held item's only. The
      // probe is settled first: revoked before its seam (on stock pi, before the turn end that would deliver it).
      await inject(home, PROBE);
      await runSteer(["revoke", PROBE.id], home);
      const { pid, journal } = steeringFiles(home);
      const acceptLength = Buffer.byteLength(readFileSync(journal, "utf8").trimEnd().split("\n").at(-2)!) + 1;
      const limit = statSync(journal).size + acceptLength;
      execFileSync("prlimit", ["--pid", String(pid), `--fsize=${limit}:${limit}`]);
      const held = await inject(home, HELD);
      expect(held).toEqual({ id: HELD.id }); // accepted (on disk), not handed to pi
      expect(statSync(journal).size).toBe(limit);

      writeFileSync(join(flags, "2"), "");
      const run = await first;
      expect({ code: run.code, signal: run.signal }, run.stderr).toEqual({ code: 0, signal: null });
      expect(count(run.stderr, NOTICE), run.stderr).toBe(1);
      expect(run.stderr).toContain(journal);
      expect(server.requests.some((r) => JSON.stringify(r.messages).includes("ITEM-B"))).toBe(false);

      const second = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "second"], options);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).not.toContain(NOTICE);
      const last = JSON.stringify(server.requests.at(-1)!.messages);
      // Delivered once in all: the held item appears once in the session's last request; the revoked probe and pad
      // never.
      expect(count(last, "ITEM-B")).toBe(1);
      expect(count(last, "ITEM-P ")).toBe(0);
      expect(count(last, "ITEM-PAD")).toBe(0);
    }, 300_000);
  }
});
