import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    reporters: ["default", "json"],
    outputFile: { json: ".vitest/results.json" },
    testTimeout: 180_000,
    hookTimeout: 300_000,
    // The CLI and install tests spawn pi processes; keep them from competing for the two cores.
    fileParallelism: false,
  },
});
