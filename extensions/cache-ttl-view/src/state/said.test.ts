import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { modelKey, readSaid, saidFile, ttlNotice, ttlNoticeDue } from "./said.ts";

describe("ttlNotice: once per model until something changes", () => {
  const off = "the prompt-cache TTL of loopback/m (api openai-completions) is not known";

  it("says a new reason and records it; the same reason again says nothing and writes nothing", () => {
    const first = ttlNotice({}, "loopback/m", off);
    expect(first).toEqual({ say: true, next: { "loopback/m": off } });
    expect(ttlNotice(first.next ?? {}, "loopback/m", off)).toEqual({ say: false });
  });

  it("another reason for the same model is said; another model is its own", () => {
    const record = { "loopback/m": off };
    expect(ttlNotice(record, "loopback/m", "cacheTtl.ttlSeconds <= 0").say).toBe(true);
    expect(ttlNotice(record, "other/m", off).say).toBe(true);
  });

  it("a known TTL forgets the model (said again should it become unknown), and writes only when there was one", () => {
    expect(ttlNotice({ "loopback/m": off, "x/y": off }, "loopback/m", undefined)).toEqual({
      say: false,
      next: { "x/y": off },
    });
    expect(ttlNotice({}, "loopback/m", undefined)).toEqual({ say: false });
  });

  it("a record is data: a model named like an Object member is a plain key", () => {
    expect(ttlNotice({}, "constructor", off).say).toBe(true);
    expect(ttlNotice({}, "__proto__", undefined)).toEqual({ say: false });
  });

  it("keys models by provider and id", () => {
    expect(modelKey({ provider: "anthropic", id: "claude-sonnet-4-5" })).toBe("anthropic/claude-sonnet-4-5");
    expect(modelKey(undefined)).toBe("(no model)");
  });
});

describe("the said file", () => {
  it("lives in pi's agent dir; a damaged one reads as empty (the notice comes again), and is rewritten whole", () => {
    const agentDir = mkdtempSync(join(tmpdir(), "said-"));
    const file = saidFile(agentDir);
    expect(file).toBe(join(agentDir, "cache-ttl-view", "said.json"));
    expect(ttlNoticeDue(file, "a/b", "why")).toBe(true);
    expect(ttlNoticeDue(file, "a/b", "why")).toBe(false);
    writeFileSync(file, '{"a/b": "why",');
    expect(readSaid(file)).toEqual({});
    expect(ttlNoticeDue(file, "a/b", "why")).toBe(true);
    writeFileSync(file, '{"a/b": 3, "c/d": "why"}');
    expect(readSaid(file)).toEqual({ "c/d": "why" });
  });
});
