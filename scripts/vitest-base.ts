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

/** A package's vitest config: the base `test` options with `test` overrides on top, plus any other vite config. */
export function packageTestConfig(
  config: Omit<ViteUserConfig, "test"> & { test?: PackageTestOptions } = {},
): ViteUserConfig {
  const { test, ...rest } = config;
  return defineConfig({ ...rest, test: { ...BASE_TEST_OPTIONS, ...test } });
}
