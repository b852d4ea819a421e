import { describe, expect, it } from "vitest";
import * as contracts from "./contracts.ts";

describe("contracts", () => {
  it("names every event in one style", () => {
    const names = Object.entries(contracts)
      .filter(([key]) => key.endsWith("_EVENT"))
      .map(([, value]) => value);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name).toMatch(/^pi-rails:[a-z-]+:[a-z-]+$/);
  });

  it("checks a status payload", () => {
    expect(contracts.isTtsrStatusPayload({ active: true, patched: false })).toBe(true);
    expect(contracts.isTtsrStatusPayload({ active: true })).toBe(true);
    expect(contracts.isTtsrStatusPayload({ active: "yes" })).toBe(false);
    expect(contracts.isTtsrStatusPayload(null)).toBe(false);
  });

  it("emits a typed event as its plain name, with the payload checked against the name's type", () => {
    const sent: Array<[string, unknown]> = [];
    const events = { emit: (channel: string, data: unknown) => sent.push([channel, data]) };
    contracts.emitEvent(events, contracts.TTSR_MATCHED_EVENT, { rules: ["a"], deferred: true });
    // @ts-expect-error: the status event carries a TtsrStatusPayload, not a matched one
    contracts.emitEvent(events, contracts.TTSR_STATUS_EVENT, { rules: ["a"], deferred: true });
    expect(sent[0]).toEqual(["pi-rails:ttsr:matched", { rules: ["a"], deferred: true }]);
    expect(typeof contracts.TTSR_COST_EVENT).toBe("string");
  });
});
