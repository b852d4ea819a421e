import { join } from "node:path";
import { defineConfig } from "vitest/config";

// patches:rebase points the suite at another pi version's pi-agent-core with the patch applied.
const coreDir = process.env.PI_RAILS_CORE_DIR;

export default defineConfig({
  ...(coreDir ? { resolve: { alias: { "@mariozechner/pi-agent-core": join(coreDir, "dist", "index.js") } } } : {}),
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    reporters: ["default", "json"],
    outputFile: { json: ".vitest/results.json" },
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
