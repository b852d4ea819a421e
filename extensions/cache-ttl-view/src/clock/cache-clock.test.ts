import { describe, expect, it } from "vitest";
import { SessionBuilder } from "../testing/fixtures.ts";
import { describeCache, inferTouch, judgeCache, ttlForJudgement } from "./cache-clock.ts";
import { applyBuffer, cacheRetention, decideTtl, resolveTtl } from "./ttl.ts";

const base = { now: 0, touchAt: 0, ttlSeconds: 300, bufferSeconds: 10, warmGapSeconds: 0 };

describe("judgeCache", () => {
  it("is warm until ttl - buffer, expired from exactly ttl - buffer on", () => {
    expect(judgeCache({ ...base, now: 289_999 })).toEqual({ kind: "warm", secondsLeft: 0 });
    expect(judgeCache({ ...base, now: 290_000 })).toEqual({ kind: "expired", idleSeconds: 290, secondsSince: 0 });
    expect(judgeCache({ ...base, now: 100_000 })).toEqual({ kind: "warm", secondsLeft: 190 });
    expect(judgeCache({ ...base, bufferSeconds: 0, now: 299_999 }).kind).toBe("warm");
    expect(judgeCache({ ...base, bufferSeconds: 0, now: 300_000 }).kind).toBe("expired");
  });

  it("is off with no TTL or TTL <= 0, and armed with no touch time", () => {
    expect(judgeCache({ ...base, ttlSeconds: undefined })).toEqual({ kind: "off" });
    expect(judgeCache({ ...base, ttlSeconds: 0 })).toEqual({ kind: "off" });
    expect(judgeCache({ ...base, ttlSeconds: -5 })).toEqual({ kind: "off" });
    expect(judgeCache({ ...base, touchAt: undefined })).toEqual({ kind: "armed" });
  });

  it("holds when the usage counters showed a cache read after an idle at least as long", () => {
    expect(judgeCache({ ...base, now: 400_000, warmGapSeconds: 400 }).kind).toBe("held");
    expect(judgeCache({ ...base, now: 400_001, warmGapSeconds: 400 }).kind).toBe("expired");
  });

  it("describes every state", () => {
    expect(describeCache({ kind: "expired", idleSeconds: 300, secondsSince: 5 })).toMatch(/expired about 5s ago/);
    expect(describeCache({ kind: "warm", secondsLeft: 9 })).toMatch(/warm for about 9s/);
    expect(describeCache({ kind: "armed" })).toMatch(/writes the prompt cache/);
    expect(describeCache({ kind: "off" })).toMatch(/off/);
    expect(describeCache({ kind: "held", idleSeconds: 350, warmGapSeconds: 400 })).toMatch(/not pruning yet/);
  });
});

describe("bootstrap rule and inference", () => {
  it("judges the first request after loading with the stored TTL, later ones with the current", () => {
    expect(ttlForJudgement(true, 3600, 300)).toBe(3600);
    expect(ttlForJudgement(false, 3600, 300)).toBe(300);
    expect(ttlForJudgement(true, undefined, 300)).toBe(300);
  });

  it("keeps pruning off when it is off now, and never judges with a stored TTL the buffer eats", () => {
    // Turned off, an unknown model, or a buffer that eats the current TTL: off, whatever the cache was written under.
    expect(ttlForJudgement(true, 300, undefined)).toBeUndefined();
    expect(ttlForJudgement(true, 300, 0)).toBe(0);
    // Written under 300 s, judged now with a 300 s buffer: that TTL would call every request expired.
    expect(ttlForJudgement(true, 300, 3600, 300)).toBe(3600);
    expect(ttlForJudgement(true, 3600, 300, 60)).toBe(3600);
  });

  it("infers the touch time from the message before the last assistant message, else the assistant's", () => {
    const s = new SessionBuilder().user("a").assistant("b").user("c").assistant("d");
    expect(inferTouch(s.messages)).toBe(s.messages[2]?.timestamp);
    const lone = [{ role: "assistant", content: [], timestamp: 42 }];
    expect(inferTouch(lone)).toBe(42);
    expect(inferTouch(new SessionBuilder().user("only").messages)).toBeUndefined();
  });
});

describe("resolveTtl", () => {
  const claude = { api: "anthropic-messages", provider: "anthropic", id: "claude-sonnet-4-5" };
  it("prefers settings, else the TTL of the model's wire format for pi-ai's retention", () => {
    expect(resolveTtl(120, claude, "short")).toMatchObject({ seconds: 120, source: "settings" });
    expect(resolveTtl(0, claude, "short")).toMatchObject({ seconds: undefined, source: "off" });
    expect(resolveTtl(undefined, claude, "short")).toMatchObject({ seconds: 300, source: "api" });
    expect(resolveTtl(undefined, claude, "long")).toMatchObject({ seconds: 3600, source: "api" });
    const gpt = { api: "openai-responses", provider: "openai", id: "gpt-5" };
    expect(resolveTtl(undefined, gpt, "long")).toMatchObject({ seconds: 86_400, source: "api" });
    expect(resolveTtl(undefined, { api: "google-generative-ai", provider: "google" }, "long").seconds).toBe(300);
  });

  it("reads the lifetime the model declares first (pi 1.6's promptCache), for pi-ai's retention", () => {
    const declared = { api: "pi-messages", provider: "radius", id: "r1", promptCache: { short: 240, long: 1800 } };
    expect(resolveTtl(undefined, declared, "short")).toMatchObject({ seconds: 240, source: "model" });
    expect(resolveTtl(undefined, declared, "long")).toMatchObject({ seconds: 1800, source: "model" });
    expect(resolveTtl(undefined, declared, "long").reason).toContain("promptCache.long");
    // Long retention the model does not support: the short tier, as pi-ai sends it.
    const noLong = { ...declared, compat: { supportsLongCacheRetention: false } };
    expect(resolveTtl(undefined, noLong, "long")).toMatchObject({ seconds: 240, source: "model" });
    // A tier it does not declare falls back to the wire format's table; settings still win.
    const shortOnly = { api: "anthropic-messages", provider: "p", id: "c", promptCache: { short: 120 } };
    expect(resolveTtl(undefined, shortOnly, "long")).toMatchObject({ seconds: 3600, source: "api" });
    expect(resolveTtl(60, declared, "short")).toMatchObject({ seconds: 60, source: "settings" });
  });

  it("OpenAI's explicit prompt-cache mode: pi-ai 1.6 asks for 30 minutes with long retention", () => {
    const explicit = {
      api: "openai-responses",
      provider: "openai",
      id: "gpt-6-sol",
      compat: { supportsExplicitPromptCacheMode: true },
    };
    expect(resolveTtl(undefined, explicit, "long").seconds).toBe(1800);
    expect(resolveTtl(undefined, explicit, "short").seconds).toBe(300);
  });

  it("keys on model.api: Claude behind a custom provider name is pruned like Claude", () => {
    const proxy = { api: "anthropic-messages", provider: "corp-gateway", id: "claude-opus-4-1" };
    expect(resolveTtl(undefined, proxy, "short")).toMatchObject({ seconds: 300, source: "api" });
    const router = { api: "openai-completions", provider: "openrouter", id: "anthropic/claude-sonnet-4.5" };
    expect(resolveTtl(undefined, router, "long").seconds).toBe(3600);
    expect(
      resolveTtl(undefined, { api: "bedrock-converse-stream", id: "anthropic.claude-sonnet-4-5" }, "long"),
    ).toMatchObject({ seconds: 3600 });
  });

  it("long retention only where the model supports it (as pi-ai decides)", () => {
    const noLong = { api: "anthropic-messages", provider: "x", id: "y", compat: { supportsLongCacheRetention: false } };
    expect(resolveTtl(undefined, noLong, "long").seconds).toBe(300);
    // pi-ai sends no prompt_cache_retention on Azure's or Codex's Responses API: 24 h there would never prune.
    for (const api of ["azure-openai-responses", "openai-codex-responses"]) {
      expect(resolveTtl(undefined, { api, provider: api, id: "gpt-5" }, "long")).toMatchObject({ seconds: 300 });
    }
  });

  it("Bedrock: the TTL where pi-ai puts cache points (Claude by id or name, or forced), else off", () => {
    const bedrock = (id: string, name?: string) => ({
      api: "bedrock-converse-stream",
      provider: "amazon-bedrock",
      id,
      name,
    });
    const profile = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3";
    expect(resolveTtl(undefined, bedrock(profile, "Claude Sonnet 4.5 (team profile)"), "long", {}).seconds).toBe(3600);
    expect(resolveTtl(undefined, bedrock("us.anthropic.claude-opus-5-v1:0"), "short", {}).seconds).toBe(300);
    expect(resolveTtl(undefined, bedrock("us.anthropic.claude-3-7-sonnet-20250219-v1:0"), "short", {}).seconds).toBe(
      300,
    );
    // No cache points: an ARN naming no model, and Claude families pi-ai does not cache.
    expect(resolveTtl(undefined, bedrock(profile), "short", {}).seconds).toBeUndefined();
    expect(
      resolveTtl(undefined, bedrock("anthropic.claude-3-haiku-20240307-v1:0"), "short", {}).seconds,
    ).toBeUndefined();
    expect(resolveTtl(undefined, bedrock("amazon.nova-pro-v1:0"), "short", {}).seconds).toBeUndefined();
    // AWS_BEDROCK_FORCE_CACHE=1: pi-ai adds them to any model.
    expect(resolveTtl(undefined, bedrock(profile), "short", { AWS_BEDROCK_FORCE_CACHE: "1" }).seconds).toBe(300);
  });

  it("an unknown cache is off, and says why and what to set", () => {
    const local = { api: "openai-completions", provider: "loopback", id: "loopback-model" };
    const r = resolveTtl(undefined, local, "short");
    expect(r.seconds).toBeUndefined();
    expect(r.reason).toContain("loopback/loopback-model (api openai-completions)");
    expect(r.reason).toContain("set cacheTtl.ttlSeconds");
  });

  it("a buffer that eats the derived TTL turns pruning off, naming the setting and the TTL", () => {
    const derived = resolveTtl(undefined, { api: "google-generative-ai", provider: "google", id: "g" }, "short");
    expect(applyBuffer(derived, 10)).toBe(derived);
    const off = applyBuffer(derived, 300);
    expect(off.seconds).toBeUndefined();
    expect(off.reason).toContain("cacheTtl.bufferSeconds (300) is not less than the TTL of 300s");
  });

  it("reads PI_CACHE_RETENTION as pi-ai 1.6 does: none still sends the default markers, so it is short", () => {
    expect(cacheRetention({})).toBe("short");
    expect(cacheRetention({ PI_CACHE_RETENTION: "long" })).toBe("long");
    expect(cacheRetention({ PI_CACHE_RETENTION: "none" })).toBe("short");
  });
});

describe("decideTtl: the one decision the extension and the report share", () => {
  const settings = { enabled: true, bufferSeconds: 10 };
  const loopback = { api: "openai-completions", provider: "loopback", id: "loopback-model" };

  it("an unknown TTL is off, with the reason and what to set", () => {
    expect(decideTtl(settings, true, loopback, "short")).toEqual({
      seconds: undefined,
      source: "off",
      reason:
        "the prompt-cache TTL of loopback/loopback-model (api openai-completions) is not known: set cacheTtl.ttlSeconds to prune",
    });
  });

  it("the model's own promptCache, then settings, then conflicting settings, then disabled", () => {
    expect(decideTtl(settings, true, { ...loopback, promptCache: { short: 120 } }, "short").seconds).toBe(120);
    expect(decideTtl({ ...settings, ttlSeconds: 60 }, true, loopback, "short").seconds).toBe(60);
    expect(decideTtl({ ...settings, ttlSeconds: 60 }, false, loopback, "short")).toMatchObject({
      seconds: undefined,
      reason: expect.stringContaining("conflict"),
    });
    expect(decideTtl({ ...settings, enabled: false, ttlSeconds: 60 }, true, loopback, "short").source).toBe("disabled");
  });

  it("a buffer that eats the TTL is off", () => {
    expect(decideTtl({ ...settings, bufferSeconds: 300 }, true, { api: "anthropic-messages" }, "short")).toMatchObject({
      seconds: undefined,
      reason: expect.stringContaining("bufferSeconds (300)"),
    });
  });
});
