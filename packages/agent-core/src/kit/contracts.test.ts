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
});
