import { afterEach, describe, expect, it } from "vitest";
import { acksOf, type BridgeHarness, bridgeSessionPerTest } from "./helpers.ts";
import { runSteer } from "./steer-cli.ts";

const openBridgeSession = bridgeSessionPerTest(afterEach);
let harness: BridgeHarness | undefined;

describe("pi-steer queue commands against a live session", () => {
  it("remind, note, inject with options, pending, revoke, and field-named refusals", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }] });
    const { test } = harness;
    const where = { cwd: test.cwd, env: { ...process.env, HOME: test.home, PI_CODING_AGENT_DIR: test.agentDir } };
    const run = async (...args: string[]) => runSteer(args, where);

    const remind = await run(
      "remind",
      "keep the tests green",
      "--mode",
      "finish_step",
      "--dedupe-key",
      "tests",
      "--ttl",
      "60000",
      "--json",
    );
    expect(remind.code, remind.stderr).toBe(0);
    const remindId = JSON.parse(remind.stdout).id as string;
    const note = await run("note", "CI is red on main");
    expect(note.code, note.stderr).toBe(0);
    expect(note.stdout).toMatch(/^queued st_\w+/);
    const audit = await run(
      "inject",
      "decided: no schema change",
      "--mode",
      "audit_only",
      "--leftover",
      "discard",
      "--json",
    );
    const auditId = JSON.parse(audit.stdout).id as string;
    const doomed = await run("inject", "REVOKE-ME", "--mode", "interrupt_immediate", "--id", "doomed-1", "--json");
    const doomedId = JSON.parse(doomed.stdout).id as string;
    expect(doomedId).toBe("doomed-1");
    const retry = await run("inject", "REVOKE-ME", "--mode", "interrupt_immediate", "--id", "doomed-1");
    expect(retry.stdout).toContain("already queued or settled: nothing queued again");

    const pending = await run("pending", "--json");
    expect(JSON.parse(pending.stdout).map((i: { id: string }) => i.id)).toEqual([
      remindId,
      expect.any(String),
      auditId,
      doomedId,
    ]);
    const human = await run("pending");
    expect(human.stdout).toContain(`${remindId}  finish_step  reminder  "keep the tests green"`);

    expect((await run("revoke", doomedId)).code).toBe(0);
    const again = await run("revoke", doomedId, "--json");
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({ id: doomedId, status: "already_settled", state: "revoked" });
    expect((await run("revoke", "st_unknown")).code).toBe(1);

    const bad = await run("inject", "hello", "--mode", "later");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Invalid params: mode: must be one of interrupt_immediate, finish_step, audit_only/);
    const badTtl = await run("inject", "hello", "--mode", "finish_step", "--ttl", "soon");
    expect(badTtl.code).toBe(2);
    expect(badTtl.stderr).toMatch(/--ttl must be a positive integer/);

    await test.prompt("go");
    const body = JSON.stringify(harness.server.requests[0]!.messages);
    expect(body).toContain("keep the tests green");
    expect(body).toContain("CI is red on main");
    expect(body).not.toContain("REVOKE-ME");
    expect(body).not.toContain("decided: no schema change");
    expect(acksOf(harness.acks, auditId)).toMatchObject([{ state: "audited", seam: "loop_exit" }]);
  });
});
