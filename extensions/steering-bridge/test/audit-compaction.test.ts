import { afterEach, describe, expect, it } from "vitest";
import { STEERING_EVENTS } from "../src/events.ts";
import { acksOf, type BridgeHarness, bridgeSessionPerTest } from "./helpers.ts";

const openBridgeSession = bridgeSessionPerTest(afterEach);
let harness: BridgeHarness | undefined;

describe("audit records are never in a model request, compaction included", () => {
  it("a real auto-compaction summarises the history around the audit records without them", async () => {
    harness = await openBridgeSession({
      persist: true,
      // Threshold compaction: the second answer reports 120k prompt tokens of a 128k window (reserve 16k).
      settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
      script: [
        { text: "FIRST-ANSWER" },
        { text: "SECOND-ANSWER", usage: { prompt_tokens: 120_000, completion_tokens: 10 } },
        { text: "THE-SUMMARY" },
        { text: "AFTER-COMPACTION" },
      ],
    });
    const api = harness.api();
    const audit = api.inject({ content: "AUDIT-ONLY-RECORD", mode: "audit_only", kind: "message" });
    await harness.test.prompt("first prompt");
    expect(acksOf(harness.acks, audit.id)).toMatchObject([{ state: "audited", seam: "loop_exit" }]);

    harness.events().emit(STEERING_EVENTS.inject, {
      content: "AUDIT-AT-EXIT",
      mode: "audit_only",
      kind: "message",
    });
    await harness.test.prompt("second prompt");
    await expect.poll(() => harness!.server.requests.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    const entries = () => harness!.test.readSessionEntries() as { type: string; customType?: string }[];
    await expect.poll(() => entries().some((e) => e.type === "compaction"), { timeout: 15_000 }).toBe(true);

    const compactionRequest = JSON.stringify(harness.server.requests[2]!.body);
    expect(compactionRequest).toContain("FIRST-ANSWER"); // it really summarised the history
    expect(entries().filter((e) => e.customType === "steering:audit")).toHaveLength(2);
    await harness.test.prompt("third prompt");
    for (const request of harness.server.requests) {
      const body = JSON.stringify(request.body);
      expect(body).not.toContain("AUDIT-ONLY-RECORD");
      expect(body).not.toContain("AUDIT-AT-EXIT");
    }
  });
});
