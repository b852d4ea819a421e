import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSettingsSection } from "@pi-rails/agent-core/kit";
import { describe, expect, it } from "vitest";
import { CacheTtlSettingsSchema, loadCacheTtlSettings } from "./settings.ts";

/** The issues of one `cacheTtl` section, as the extension's loader finds them (the kit's settings rule). */
const problemsOf = (section: unknown, file: string) =>
  parseSettingsSection(section, file, "cacheTtl", CacheTtlSettingsSchema.shape).issues;

function homes(user: string | undefined, project: string | undefined) {
  const root = mkdtempSync(join(tmpdir(), "cache-ttl-"));
  const agentDir = join(root, "agent");
  const cwd = join(root, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(join(cwd, ".pi"), { recursive: true });
  if (user !== undefined) writeFileSync(join(agentDir, "settings.json"), user);
  if (project !== undefined) writeFileSync(join(cwd, ".pi", "settings.json"), project);
  return { agentDir, cwd, projectFile: join(cwd, ".pi", "settings.json") };
}

describe("loadCacheTtlSettings", () => {
  it("merges user then project settings per key, with documented defaults", () => {
    const h = homes(
      JSON.stringify({ cacheTtl: { ttlSeconds: 3600, keepRecentTurns: 4 } }),
      JSON.stringify({ cacheTtl: { keepRecentTurns: 8, pins: { tools: ["memory"] } } }),
    );
    const { settings, issues, valid } = loadCacheTtlSettings(h.cwd, h.agentDir);
    expect(issues).toEqual([]);
    expect(valid).toBe(true);
    expect(settings).toMatchObject({
      enabled: true,
      ttlSeconds: 3600,
      bufferSeconds: 10,
      keepRecentTurns: 8,
      keepRecentIntactTurns: 1,
      maxTextChars: 400,
      maxFieldChars: 1000,
      maxListItems: 50,
      maxDictKeys: 80,
      maxBase64Chars: 4000,
      keepRecentImages: 2,
      maxImageBase64Total: 1_000_000,
      minGainTokens: 1000,
      pins: { tools: ["memory"], paths: [], ids: [] },
    });
  });

  it("an untrusted project's file is left out, as pi 1.6 leaves it out, and its cacheTtl is said to be ignored", () => {
    const h = homes(
      JSON.stringify({ cacheTtl: { ttlSeconds: 3600 } }),
      JSON.stringify({ cacheTtl: { ttlSeconds: 60, bufferSeconds: 5 } }),
    );
    const untrusted = loadCacheTtlSettings(h.cwd, h.agentDir, { projectTrusted: false });
    expect(untrusted.settings).toMatchObject({ ttlSeconds: 3600, bufferSeconds: 10 });
    expect(untrusted.issues).toEqual([
      { file: h.projectFile, key: "cacheTtl", message: expect.stringContaining("the project is not trusted") },
    ]);
    const trusted = loadCacheTtlSettings(h.cwd, h.agentDir, { projectTrusted: true });
    expect(trusted.settings).toMatchObject({ ttlSeconds: 60, bufferSeconds: 5 });
    expect(trusted.issues).toEqual([]);
  });

  it("names the file and key of a bad value once, ignores it and keeps the other keys (the kit's rule)", () => {
    const h = homes(undefined, JSON.stringify({ cacheTtl: { bufferSecs: 5, keepRecentTurns: -1, maxTextChars: 100 } }));
    const { issues, valid, settings } = loadCacheTtlSettings(h.cwd, h.agentDir);
    expect(valid).toBe(true);
    expect(settings).toMatchObject({ keepRecentTurns: 6, maxTextChars: 100 });
    expect(issues).toEqual([
      expect.objectContaining({
        file: h.projectFile,
        key: "cacheTtl.bufferSecs",
        message: expect.stringMatching(/^unknown key/),
      }),
      expect.objectContaining({
        file: h.projectFile,
        key: "cacheTtl.keepRecentTurns",
        message: expect.stringMatching(/; ignored$/),
      }),
    ]);
  });

  it("rejects impossible combinations of fields, naming the fields and the files they came from", () => {
    const h = homes(
      JSON.stringify({ cacheTtl: { ttlSeconds: 60 } }),
      JSON.stringify({ cacheTtl: { bufferSeconds: 60 } }),
    );
    const { issues, valid } = loadCacheTtlSettings(h.cwd, h.agentDir);
    expect(valid).toBe(false);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.file).toContain(h.projectFile);
    expect(issues[0]?.message).toContain("cacheTtl.bufferSeconds (60) must be less than cacheTtl.ttlSeconds (60)");
    // A TTL below the default buffer (10 s) is just as impossible.
    const low = homes(undefined, JSON.stringify({ cacheTtl: { ttlSeconds: 5 } }));
    expect(loadCacheTtlSettings(low.cwd, low.agentDir).issues[0]?.message).toContain("bufferSeconds (10)");
  });

  it("rejects windows that would touch the current turn (keepRecentIntactTurns 0)", () => {
    const h = homes(undefined, JSON.stringify({ cacheTtl: { keepRecentTurns: 0, keepRecentIntactTurns: 0 } }));
    const { issues, valid, settings } = loadCacheTtlSettings(h.cwd, h.agentDir);
    expect(valid).toBe(true);
    expect(settings.keepRecentIntactTurns).toBe(1);
    expect(issues.map((p) => p.key)).toEqual(["cacheTtl.keepRecentIntactTurns"]);
    expect(issues[0]?.message).toContain("the current turn");
  });

  it("says when the intact window is wider than the kept one (which applies, and from which turn), and prunes on", () => {
    const h = homes(
      JSON.stringify({ cacheTtl: { keepRecentTurns: 2 } }),
      JSON.stringify({ cacheTtl: { keepRecentIntactTurns: 5 } }),
    );
    const { issues, valid, settings } = loadCacheTtlSettings(h.cwd, h.agentDir);
    expect(valid).toBe(true);
    expect(settings).toMatchObject({ keepRecentTurns: 2, keepRecentIntactTurns: 5 });
    expect(issues).toHaveLength(1);
    expect(issues[0]?.file).toContain(h.projectFile);
    expect(issues[0]?.key).toBe("cacheTtl.keepRecentIntactTurns");
    expect(issues[0]?.message).toBe(
      "cacheTtl.keepRecentIntactTurns (5) is above cacheTtl.keepRecentTurns (2): the last 5 turns stay untouched, " +
        "so turns are replaced from the 6th last on, not the 3rd",
    );
    const equal = homes(undefined, JSON.stringify({ cacheTtl: { keepRecentTurns: 3, keepRecentIntactTurns: 3 } }));
    expect(loadCacheTtlSettings(equal.cwd, equal.agentDir).issues).toEqual([]);
    // keepRecentTurns 0 keeps the current turn all the same: replaced from the 2nd last on, not the 1st.
    const zero = homes(undefined, JSON.stringify({ cacheTtl: { keepRecentTurns: 0, keepRecentIntactTurns: 3 } }));
    expect(loadCacheTtlSettings(zero.cwd, zero.agentDir).issues[0]?.message).toMatch(
      /from the 4th last on, not the 2nd$/,
    );
    // With a conflict as well, both are said, each under its own key (a notice is said once per file and key).
    const both = homes(
      undefined,
      JSON.stringify({
        cacheTtl: { keepRecentTurns: 2, keepRecentIntactTurns: 5, ttlSeconds: 300, bufferSeconds: 300 },
      }),
    );
    const loaded = loadCacheTtlSettings(both.cwd, both.agentDir);
    expect(loaded.valid).toBe(false);
    expect(loaded.issues.map((p) => p.key)).toEqual(["cacheTtl", "cacheTtl.keepRecentIntactTurns"]);
    expect(loaded.issues[0]?.message).toContain("pruning is off");
  });

  it("leaves a file pi cannot load to pi's own message (a trailing comma), and reports a cacheTtl that is not an object", () => {
    const h = homes('{ "cacheTtl": { "ttlSeconds": 60 }, }', JSON.stringify({ cacheTtl: [1] }));
    const { issues, valid, settings } = loadCacheTtlSettings(h.cwd, h.agentDir);
    expect(valid).toBe(true);
    expect(issues).toEqual([{ file: h.projectFile, key: "cacheTtl", message: expect.stringContaining("object") }]);
    // pi uses none of a file it cannot load: neither does the view.
    expect(settings.ttlSeconds).toBeUndefined();
  });

  it("reads a file with a byte order mark, as pi does", () => {
    const h = homes(undefined, `\uFEFF${JSON.stringify({ cacheTtl: { keepRecentTurns: 3 } })}`);
    const { issues, settings } = loadCacheTtlSettings(h.cwd, h.agentDir);
    expect(issues).toEqual([]);
    expect(settings.keepRecentTurns).toBe(3);
  });

  it("treats settings as data: prototype-ish keys are unknown keys, never a crash", () => {
    const raw =
      '{"constructor":1,"toString":"x","hasOwnProperty":2,"__proto__":{"enabled":false},"pins":{"valueOf":[]}}';
    const keys = problemsOf(JSON.parse(raw), "s.json").map((p) => p.key);
    expect(keys.sort()).toEqual(
      [
        "cacheTtl.__proto__",
        "cacheTtl.constructor",
        "cacheTtl.hasOwnProperty",
        "cacheTtl.pins",
        "cacheTtl.toString",
      ].sort(),
    );
    const h = homes(undefined, `{"cacheTtl":${raw}}`);
    const loaded = loadCacheTtlSettings(h.cwd, h.agentDir);
    expect(loaded.settings.enabled).toBe(true);
    expect(loaded.issues.map((p) => p.key)).toEqual([
      "cacheTtl.constructor",
      "cacheTtl.toString",
      "cacheTtl.hasOwnProperty",
      "cacheTtl.__proto__",
      "cacheTtl.pins",
    ]);
  });

  it("accepts ttlSeconds <= 0 (it means off) and rejects non-numbers", () => {
    expect(problemsOf({ ttlSeconds: 0 }, "f")).toEqual([]);
    expect(problemsOf({ ttlSeconds: "300" }, "f")[0]?.key).toBe("cacheTtl.ttlSeconds");
    expect(problemsOf({ pins: { paths: [""] } }, "f")[0]?.key).toBe("cacheTtl.pins[paths][0]");
  });
});

describe("the agent dir", () => {
  it.each(["~", "~/x"])("reads the user settings from PI_CODING_AGENT_DIR=%s under HOME, as pi does", (value) => {
    const { cwd, agentDir } = homes(undefined, undefined);
    const home = join(agentDir, "..", "home");
    const userDir = value === "~" ? home : join(home, "x");
    mkdirSync(userDir, { recursive: true });
    writeFileSync(join(userDir, "settings.json"), JSON.stringify({ cacheTtl: { keepRecentTurns: 2 } }));
    const saved = { HOME: process.env["HOME"], PI_CODING_AGENT_DIR: process.env["PI_CODING_AGENT_DIR"] };
    try {
      Object.assign(process.env, { HOME: home, PI_CODING_AGENT_DIR: value });
      expect(loadCacheTtlSettings(cwd).settings.keepRecentTurns).toBe(2);
    } finally {
      for (const [key, was] of Object.entries(saved)) {
        if (was === undefined) delete process.env[key];
        else process.env[key] = was;
      }
    }
  });
});
