import { describe, expect, it } from "vitest";
import { canFire, recordFiring, shouldInterrupt } from "./policy.ts";

const once = { repeatMode: "once" as const, repeatGap: 10 };
const gap2 = { repeatMode: "after-gap" as const, repeatGap: 2 };

describe("repeat policy", () => {
  it("once: fires once unless maxFirings allows more", () => {
    const fired = recordFiring(undefined, 0, 1000);
    expect(canFire({}, undefined, once, 0, 0)).toBe(true);
    expect(canFire({}, fired, once, 5, 0)).toBe(false);
    expect(canFire({ maxFirings: 2 }, fired, once, 5, 0)).toBe(true);
    expect(canFire({ maxFirings: 2 }, recordFiring(fired, 1, 2000), once, 5, 0)).toBe(false);
  });

  it("after-gap: counts completed turns since the last firing", () => {
    const fired = recordFiring(undefined, 3, 0);
    expect(canFire({}, fired, gap2, 4, 0)).toBe(false);
    expect(canFire({}, fired, gap2, 5, 0)).toBe(true);
    expect(canFire({ maxFirings: 1 }, fired, gap2, 50, 0)).toBe(false);
  });

  it("cooldown: seconds since the last firing", () => {
    const fired = recordFiring(undefined, 0, 10_000);
    expect(canFire({ cooldown: 5, maxFirings: 9 }, fired, once, 0, 14_000)).toBe(false);
    expect(canFire({ cooldown: 5, maxFirings: 9 }, fired, once, 0, 15_000)).toBe(true);
  });
});

describe("interrupt decision", () => {
  it("follows interruptMode per source and the rule's interrupt flag", () => {
    const r = { interrupt: true };
    expect(shouldInterrupt(r, "text", "always")).toBe(true);
    expect(shouldInterrupt(r, "tool", "prose-only")).toBe(false);
    expect(shouldInterrupt(r, "thinking", "prose-only")).toBe(true);
    expect(shouldInterrupt(r, "text", "tool-only")).toBe(false);
    expect(shouldInterrupt(r, "tool", "tool-only")).toBe(true);
    expect(shouldInterrupt(r, "tool", "never")).toBe(false);
    expect(shouldInterrupt({ interrupt: false }, "text", "always")).toBe(false);
  });

  it("a rule's own interruptMode overrides the setting; interrupt: false still never aborts", () => {
    expect(shouldInterrupt({ interrupt: true, interruptMode: "never" }, "text", "always")).toBe(false);
    expect(shouldInterrupt({ interrupt: true, interruptMode: "tool-only" }, "text", "always")).toBe(false);
    expect(shouldInterrupt({ interrupt: true, interruptMode: "tool-only" }, "tool", "never")).toBe(true);
    expect(shouldInterrupt({ interrupt: true, interruptMode: "always" }, "text", "never")).toBe(true);
    expect(shouldInterrupt({ interrupt: false, interruptMode: "always" }, "text", "always")).toBe(false);
  });
});
