import { join } from "node:path";
import { captureLog } from "@pi-rails/testkit";
import { describe, expect, it } from "vitest";
import { PACKAGE_DIR } from "./steer-cli.ts";

const ROOT = join(PACKAGE_DIR, "..", "..");

describe("the steering stage of pnpm demo (scripts/demo/steering.mjs)", () => {
  it("cancels the running bash sleep with the real pi-steer and narrates it", async () => {
    const { runSteeringStage } = (await import(join(ROOT, "scripts/demo/steering.mjs"))) as {
      runSteeringStage: (options: { root: string }) => Promise<Record<string, unknown>>;
    };
    const { result, text } = await captureLog(() => runSteeringStage({ root: ROOT }));
    expect(result).toMatchObject({ cancelled: true, processGone: true, modelToldCancelled: true, piExitCode: 0 });
    expect(text).toContain("terminal 2 $ pi-steer cancel call_slow_suite");
    expect(text).toContain("cancelled: call_slow_suite (bash)");
    expect(text).toContain("was cancelled by the host: user clicked stop");
  }, 120_000);
});
