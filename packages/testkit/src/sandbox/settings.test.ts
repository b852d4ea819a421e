import { describe, expect, it } from "vitest";
import { mergeSettings, SANDBOX_DEFAULT_SETTINGS } from "./settings.ts";

describe("mergeSettings", () => {
  it("merges nested objects and lets later layers win", () => {
    expect(
      mergeSettings(SANDBOX_DEFAULT_SETTINGS, { retry: { enabled: false }, packages: ["a"] }, { packages: [] }),
    ).toEqual({
      retry: { enabled: false, provider: { maxRetries: 0 } },
      cacheWarming: "off",
      packages: [],
    });
    expect(
      mergeSettings({ retry: { provider: { maxRetries: 0 } } }, { retry: { provider: { maxRetries: 2 } } }),
    ).toEqual({
      retry: { provider: { maxRetries: 2 } },
    });
  });
});
