import { packageTestConfig } from "../../../scripts/vitest-base.ts";

/** `pnpm bench`'s real-CLI part: not a test (no JSON report for CI's count), one long run. */
export default packageTestConfig({
  test: { include: ["bench/**/*.run.ts"], reporters: ["default"], testTimeout: 900_000, hookTimeout: 120_000 },
});
