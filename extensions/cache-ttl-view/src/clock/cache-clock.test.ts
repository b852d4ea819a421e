import { describe, expect, it } from "vitest";
import { CacheTtlSettingsSchema } from "../settings/settings.ts";
import { describeCache, judgeCache } from "./cache-clock.ts";

const settings = CacheTtlSettingsSchema.parse({});

describe("judgeCache", () => {
  it("is warm until ttl minus buffer, then expired", () => {
    expect(judgeCache(undefined, 0, settings)).toEqual({ kind: "unknown" });
    expect(judgeCache(0, 100_000, settings)).toEqual({ kind: "warm", secondsLeft: 190 });
    expect(judgeCache(0, 291_000, settings)).toEqual({ kind: "expired", secondsSince: 1 });
    expect(judgeCache(0, 0, { ...settings, enabled: false })).toEqual({ kind: "off" });
    expect(describeCache({ kind: "expired", secondsSince: 5 })).toMatch(/expired about 5s ago/);
  });
});
