import { describe, expect, it } from "vitest";
import { isDeliveryMode, isLoopSeam, LOOP_SEAMS, resolveSeamSelector, SEAM_DRAIN_POLICY } from "./catalog.ts";

describe("seam catalog", () => {
  it("is closed: seven seams, each with a drain policy", () => {
    expect(LOOP_SEAMS).toHaveLength(7);
    expect(Object.keys(SEAM_DRAIN_POLICY).sort()).toEqual([...LOOP_SEAMS].sort());
  });

  it("drains interrupts only where nothing else may run first, audit only at loop_exit", () => {
    expect(SEAM_DRAIN_POLICY.pre_tool_dispatch.modes).toEqual(["interrupt_immediate"]);
    expect(SEAM_DRAIN_POLICY.loop_exit.modes).toEqual(["audit_only"]);
    const inboxSeams = LOOP_SEAMS.filter((kind) => SEAM_DRAIN_POLICY[kind].inbox);
    expect(inboxSeams).toEqual(["pre_compact", "post_compact"]);
  });

  it("rejects unknown names instead of guessing", () => {
    expect(isLoopSeam("pre_tool_dispatch")).toBe(true);
    expect(isLoopSeam("pre_tool")).toBe(false);
    expect(isDeliveryMode("wait_for_completion")).toBe(false);
    expect(() => resolveSeamSelector(["iteration_start", "nope" as never])).toThrow(/Unknown loop seam "nope"/);
    expect([...resolveSeamSelector("*")]).toEqual([...LOOP_SEAMS]);
  });
});
