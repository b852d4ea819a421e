import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_TTSR_SETTINGS } from "./defaults.ts";
import { readTtsrSettings } from "./read.ts";
import { parseTtsrSettings, TtsrSettingsSchema } from "./schema.ts";

describe("ttsr settings", () => {
  it("the zod-free defaults are the schema's defaults", () => {
    expect(DEFAULT_TTSR_SETTINGS).toEqual(TtsrSettingsSchema.parse({}));
  });

  it("keeps valid keys and names the file and key of each bad one", () => {
    const { settings, issues } = parseTtsrSettings(
      { enabled: false, contextMode: "forget", repeatGap: 0, disabledRules: ["x"], extra: 1 },
      "/s.json",
    );
    expect(settings).toEqual({ ...DEFAULT_TTSR_SETTINGS, enabled: false, disabledRules: ["x"] });
    expect(issues.map((i) => `${i.file} ${i.key}`)).toEqual([
      "/s.json ttsr.contextMode",
      "/s.json ttsr.repeatGap",
      "/s.json ttsr.extra",
    ]);
  });

  it("merges user then project settings, and survives broken JSON", async () => {
    const root = mkdtempSync(join(tmpdir(), "ttsr-settings-"));
    const agentDir = join(root, "agent");
    const cwd = join(root, "project");
    mkdirSync(agentDir, { recursive: true });
    mkdirSync(join(cwd, ".pi"), { recursive: true });
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ ttsr: { interruptMode: "never", repeatGap: 3 } }));
    writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ ttsr: { interruptMode: "tool-only" } }));
    const read = await readTtsrSettings(cwd, agentDir);
    expect(read.settings).toMatchObject({ interruptMode: "tool-only", repeatGap: 3 });
    writeFileSync(join(cwd, ".pi", "settings.json"), "{ nope");
    const broken = await readTtsrSettings(cwd, agentDir);
    expect(broken.settings.interruptMode).toBe("never");
    expect(broken.issues[0]?.message).toMatch(/not valid JSON/);
  });

  it("leaves an untrusted project's file out, and says once that its ttsr key was ignored", async () => {
    const root = mkdtempSync(join(tmpdir(), "ttsr-settings-"));
    const agentDir = join(root, "agent");
    const cwd = join(root, "project");
    mkdirSync(agentDir, { recursive: true });
    mkdirSync(join(cwd, ".pi"), { recursive: true });
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ ttsr: { repeatGap: 3 } }));
    const projectFile = join(cwd, ".pi", "settings.json");
    writeFileSync(projectFile, JSON.stringify({ ttsr: { enabled: false, repeatGap: 5 } }));
    const untrusted = await readTtsrSettings(cwd, agentDir, { projectTrusted: false });
    expect(untrusted.settings).toEqual({ ...DEFAULT_TTSR_SETTINGS, repeatGap: 3 });
    expect(untrusted.issues).toEqual([
      { file: projectFile, key: "ttsr", message: expect.stringMatching(/^ignored: pi does not trust this project/) },
    ]);
    const trusted = await readTtsrSettings(cwd, agentDir, { projectTrusted: true });
    expect(trusted.settings).toMatchObject({ enabled: false, repeatGap: 5 });
    expect(trusted.issues).toEqual([]);
    // Nothing to say when the untrusted file has no ttsr key (or is not JSON: pi-ttsr does not read it).
    writeFileSync(projectFile, JSON.stringify({ theme: "dark" }));
    expect((await readTtsrSettings(cwd, agentDir, { projectTrusted: false })).issues).toEqual([]);
    writeFileSync(projectFile, "{ nope");
    expect((await readTtsrSettings(cwd, agentDir, { projectTrusted: false })).issues).toEqual([]);
  });

  it("keeps the good entries of disabledRules and names each bad one", () => {
    const { settings, issues } = parseTtsrSettings({ disabledRules: ["a", 1, null, "b"] }, "/s.json");
    expect(settings.disabledRules).toEqual(["a", "b"]);
    expect(issues.map((i) => i.key)).toEqual(["ttsr.disabledRules[1]", "ttsr.disabledRules[2]"]);
  });

  it("trims disabledRules and ignores empty entries", () => {
    const { settings, issues } = parseTtsrSettings({ disabledRules: [" no-eval ", "", "  ", "x"] }, "/s.json");
    expect(issues).toEqual([]);
    expect(settings.disabledRules).toEqual(["no-eval", "x"]);
  });

  it("treats the settings object as data: member-like keys are unknown keys with file and key, the rest applies", () => {
    const raw = JSON.parse(
      '{"constructor":1,"toString":"x","hasOwnProperty":2,"__proto__":{"enabled":false},"repeatGap":3}',
    );
    const { settings, issues } = parseTtsrSettings(raw, "/s.json");
    expect(settings).toEqual({ ...DEFAULT_TTSR_SETTINGS, repeatGap: 3 });
    expect(settings.enabled).toBe(true);
    expect(issues.map((i) => `${i.file} ${i.key}: ${i.message.slice(0, 18)}`)).toEqual([
      "/s.json ttsr.constructor: unknown key (known",
      "/s.json ttsr.toString: unknown key (known",
      "/s.json ttsr.hasOwnProperty: unknown key (known",
      "/s.json ttsr.__proto__: unknown key (known",
    ]);
  });

  it("reads a settings file whose top level has member-like keys", async () => {
    const root = mkdtempSync(join(tmpdir(), "ttsr-settings-"));
    mkdirSync(join(root, "p", ".pi"), { recursive: true });
    writeFileSync(join(root, "p", ".pi", "settings.json"), '{"constructor":{"ttsr":1},"ttsr":{"constructor":1}}');
    const read = await readTtsrSettings(join(root, "p"), join(root, "agent"));
    expect(read.settings.enabled).toBe(true);
    expect(read.issues).toEqual([
      expect.objectContaining({ file: join(root, "p", ".pi", "settings.json"), key: "ttsr.constructor" }),
    ]);
  });
});
