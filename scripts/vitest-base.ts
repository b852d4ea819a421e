import { availableParallelism, loadavg } from "node:os";
import { defineConfig, type ViteUserConfig } from "vitest/config";

/** A package's `test` options; what it sets replaces the base's value of that key. */
export type PackageTestOptions = NonNullable<ViteUserConfig["test"]>;

/**
 * What every package's suite shares: tests in `src/` and `test/`, a JSON report at `.vitest/results.json` (the
 * file scripts/test-summary.mjs sums for CI's one line), and timeouts that fit real pi sessions on a loaded
 * 2-core machine. Lives under scripts/ because turbo's test task already hashes `$TURBO_ROOT$/scripts/**`, so
 * a change here reruns every package's tests.
 */
export const BASE_TEST_OPTIONS = {
  include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  reporters: ["default", "json"],
  outputFile: { json: ".vitest/results.json" },
  testTimeout: 30_000,
  hookTimeout: 30_000,
} satisfies PackageTestOptions;

/**
 * How many times slower than a quiet machine this one runs now: the last minute's load per core, between 1 and 4.
 * CI runs every package's suite at once on two cores (load 10-20 seen); a test that takes 8 s alone then takes 30 s
 * or more. Timeouts only decide when a stuck test is given up on, never what passes, so they grow with the load and
 * a quiet machine keeps the base values.
 */
export function loadSlowdown(load = loadavg()[0] ?? 0, cores = availableParallelism()): number {
  return Math.min(4, Math.max(1, load / Math.max(1, cores)));
}

/** A package's vitest config: the base `test` options with `test` overrides on top, plus any other vite config. */
export function packageTestConfig(
  config: Omit<ViteUserConfig, "test"> & { test?: PackageTestOptions } = {},
): ViteUserConfig {
  const { test, ...rest } = config;
  const options = { ...BASE_TEST_OPTIONS, ...test };
  const slowdown = loadSlowdown();
  return defineConfig({
    ...rest,
    test: {
      ...options,
      testTimeout: Math.round(options.testTimeout * slowdown),
      hookTimeout: Math.round(options.hookTimeout * slowdown),
    },
  });
}
