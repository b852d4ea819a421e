import { packageTestConfig } from "../../scripts/vitest-base.ts";

export default packageTestConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    // The CLI and install tests spawn pi processes; keep them from competing for the two cores.
    fileParallelism: false,
  },
});
