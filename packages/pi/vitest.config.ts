import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    reporters: ["default", "json"],
    outputFile: { json: ".vitest/results.json" },
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
});
