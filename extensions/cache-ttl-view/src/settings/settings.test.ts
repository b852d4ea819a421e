import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCacheTtlSettings } from "./settings.ts";

describe("loadCacheTtlSettings", () => {
  it("merges user then project settings and names the file and key of bad values", () => {
    const root = mkdtempSync(join(tmpdir(), "cache-ttl-"));
    const agentDir = join(root, "agent");
    const cwd = join(root, "project");
    mkdirSync(agentDir, { recursive: true });
    mkdirSync(join(cwd, ".pi"), { recursive: true });
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ cacheTtl: { ttlSeconds: 3600 } }));
    writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ cacheTtl: { bufferSecs: 5 } }));
    const { settings, problems } = loadCacheTtlSettings(cwd, agentDir);
    expect(settings.ttlSeconds).toBe(3600);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: join(cwd, ".pi", "settings.json"), key: "cacheTtl.bufferSecs" });
  });
});
