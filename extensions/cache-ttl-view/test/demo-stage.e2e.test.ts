import { fileURLToPath } from "node:url";
import { captureLog } from "@pi-rails/testkit";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { runCacheTtlStage } from "../../../scripts/demo/cache-ttl.mjs";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

describe("pnpm demo stage: scripts/demo/cache-ttl.mjs", () => {
  it("runs the real pi twice and narrates the prune: file gone, notice seen, original kept", async () => {
    const { result, text } = await captureLog(
      () => runCacheTtlStage({ root: ROOT }) as Promise<Record<string, unknown> & { savedTokens: number }>,
    );
    expect(result).toMatchObject({ fileGone: true, noticeSeen: true, originalKept: true, piExitCode: 0 });
    expect(result.savedTokens).toBeGreaterThan(10_000);
    expect(text).toContain("the 50 KB file is in the request: no");
    expect(text).toContain("[TRUNCATED FILE] id=");
    expect(text).toContain("still holds the original log: yes");
  }, 180_000);
});
