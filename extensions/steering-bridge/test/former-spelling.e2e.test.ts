import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { closeAfterEach, prepareCliHome, runPi, startModelServer } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { PACKAGE_DIR } from "./steer-cli.ts";

const keep = closeAfterEach(afterEach);

/** Appends `entry` to the session file as the next entry of its branch (linked to the last one, as pi links them). */
function appendEntry(file: string, entry: Record<string, unknown>): void {
  const lines = readFileSync(file, "utf8").trim().split("\n");
  const last = JSON.parse(lines.at(-1)!) as { id: string };
  const id = `former${lines.length}`;
  appendFileSync(file, `${JSON.stringify({ ...entry, id, parentId: last.id, timestamp: new Date().toISOString() })}\n`);
}

// Sessions written before entries were spelled `steering:<kind>` hold `steering-queue` snapshots and (older still)
// `steering-audit` messages: a resumed session still reads the first and keeps the second away from the model.
describe("a session written with the former entry spelling (real pi CLI)", () => {
  it("its steering-queue snapshot is carried into the next run, its steering-audit message never reaches the model", async () => {
    const server = keep(await startModelServer({ script: [{ text: "first" }, { text: "second" }] }));
    const home = keep(prepareCliHome({ server }));
    const first = await runPi(["-e", PACKAGE_DIR, "-p", "one"], { home, timeoutMs: 120_000 });
    expect(first.code, first.stderr).toBe(0);
    const sessions = join(home.agentDir, "sessions");
    const [name] = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
    const file = join(sessions, name!);
    const item = {
      id: "st_former",
      content: "CARRIED-FROM-FORMER-SPELLING",
      kind: "message",
      channel: "bridge",
      mode: "finish_step",
      leftover: "carry",
      source: "older-version",
      enqueuedAt: 1,
    };
    appendEntry(file, {
      type: "custom_message",
      customType: "steering-audit",
      content: "FORMER-AUDIT-RECORD",
      display: false,
    });
    appendEntry(file, { type: "custom", customType: "steering-queue", data: { version: 1, items: [item] } });

    const second = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "two"], { home, timeoutMs: 120_000 });
    expect(second.code, second.stderr).toBe(0);
    const sent = JSON.stringify(server.requests[1]!.messages);
    expect(sent.split("CARRIED-FROM-FORMER-SPELLING")).toHaveLength(2);
    expect(sent).not.toContain("FORMER-AUDIT-RECORD");
    // Written from now on in the new spelling: the snapshot after the delivery is empty.
    const entries = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { customType?: string; data?: { items?: unknown[] } });
    expect(entries.filter((e) => e.customType === "steering:queue").at(-1)?.data?.items).toEqual([]);
  }, 300_000);
});
