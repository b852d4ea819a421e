import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTtsrSettings } from "./read.ts";
import { DEFAULT_TTSR_SETTINGS, parseTtsrSettings } from "./schema.ts";

describe("ttsr settings", () => {
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
});
