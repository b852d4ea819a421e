import { describe, expect, it } from "vitest";
import { formatSeamLog, SeamLog } from "./seam-log.ts";

describe("SeamLog", () => {
  it("keeps the latest passes and formats them one per line", () => {
    const log = new SeamLog(2);
    log.record({ iteration: 1, kind: "iteration_start", delivered: 0, inboxDelivered: 0, dispatchSkipped: false });
    log.record({ iteration: 1, kind: "pre_tool_dispatch", delivered: 1, inboxDelivered: 0, dispatchSkipped: true });
    log.record({ iteration: 2, kind: "loop_exit", delivered: 0, inboxDelivered: 2, dispatchSkipped: false });
    expect(formatSeamLog(log.latest())).toBe(
      "#1 pre_tool_dispatch (delivered 1, tool batch skipped)\n#2 loop_exit (inbox 2)",
    );
    log.clear();
    expect(formatSeamLog(log.latest())).toMatch(/No loop seam/);
  });
});
