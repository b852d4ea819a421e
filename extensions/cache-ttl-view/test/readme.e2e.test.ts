import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSettingsSection } from "@pi-rails/agent-core/kit";
import {
  type CliHome,
  closeAfterEach,
  type ModelServer,
  prepareCliHome,
  runPi,
  startProviderServer,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { CLOCK_OFFSET_ENV } from "../src/extension.ts";
import { CacheTtlSettingsSchema } from "../src/settings/settings.ts";
import { PACKAGE_DIR } from "./cli-scenario.ts";
import { bigFile, json } from "./helpers.ts";

/** The README's first screen is what a new user tries: its example runs here, as shown, in the real pi CLI. */

const README = readFileSync(join(PACKAGE_DIR, "README.md"), "utf8");
const FIRST_SCREEN = README.slice(0, README.indexOf("\n## What it does"));
const EXAMPLE = FIRST_SCREEN.slice(FIRST_SCREEN.indexOf("## Example"));
const block = (lang: string) => new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(EXAMPLE)?.[1] ?? "";

/**
 * A line the README shows, as a pattern: `…` stands for what differs per run (ids), and the idle seconds are the
 * README's ten minutes plus however long this machine took between the two runs.
 */
const shownAs = (line: string) =>
  new RegExp(
    line
      .trim()
      .split("…")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*?")
      .replace("\\(idle 600s\\)", "\\(idle 6\\d\\ds\\)"),
  );

/** Every string inside a request's messages (tool results and notices are strings, wherever the format puts them). */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) strings(v, out);
  return out;
}

const keep = closeAfterEach(afterEach);
let server: ModelServer | undefined;
let home: CliHome | undefined;

describe("the README's first screen", () => {
  it("says what it does, how to install into your own pi, one example and the setting people change first; internals later", () => {
    const sections = [...FIRST_SCREEN.matchAll(/^## (.*)$/gm)].map((m) => m[1]);
    expect(sections).toEqual(["Install", "Example"]);
    expect(FIRST_SCREEN).toMatch(/```bash\npi install npm:@pi-rails\/cache-ttl-view\n```/);
    expect(FIRST_SCREEN).toContain("**The setting people change first:** `keepRecentTurns`");
    for (const internal of ["jiti", "bundle", "interop", "dist/pi/extension.js"]) {
      expect(FIRST_SCREEN).not.toContain(internal);
    }
    // Each settings text it shows is valid as it stands.
    for (const text of [block("json"), ...FIRST_SCREEN.matchAll(/`(\{ "cacheTtl": .*? \})`/g)].map((m) =>
      typeof m === "string" ? m : (m[1] as string),
    )) {
      const { issues } = parseSettingsSection(
        JSON.parse(text).cacheTtl,
        "README",
        "cacheTtl",
        CacheTtlSettingsSchema.shape,
      );
      expect(issues, text).toEqual([]);
    }
  });

  it("its example runs as shown: the settings, a 50 KB big.txt, ten minutes on the pruned read and the notice, then a restore", async () => {
    const shown = block("text").split("\n");
    const summary = shownAs(shown.find((l) => l.includes("[TRUNCATED FILE]"))?.replace(/^.*?(\{"tool")/, "$1") ?? "");
    const notice = shownAs(shown.find((l) => l.includes("[SYSTEM MESSAGE]")) ?? "");
    const settings = JSON.parse(block("json"));
    let id = "missing";
    server = keep(
      await startProviderServer("openai-completions", {
        strict: true,
        script: (request, index) => {
          if (index === 0) return { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "big.txt" } }] };
          if (index === 2) {
            id = /\[TRUNCATED FILE\] id=([0-9a-f]{8}) path=big\.txt/.exec(json(request.messages))?.[1] ?? "missing";
            return { toolCalls: [{ id: "call_restore", name: "context_restore", arguments: { ids: [id] } }] };
          }
          return { text: `answer ${index}` };
        },
      }),
    );
    home = keep(
      prepareCliHome({
        server,
        files: { "big.txt": bigFile(50) },
        settings: { cacheWarming: "off" },
        projectSettings: settings,
      }),
    );
    const first = await runPi(["-e", PACKAGE_DIR, "-p", "read big.txt"], { home, timeoutMs: 120_000 });
    expect(first.code, first.stderr).toBe(0);
    const later = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "what was on line 300?"], {
      home,
      env: { [CLOCK_OFFSET_ENV]: "600" },
      timeoutMs: 120_000,
    });
    expect(later.code, later.stderr).toBe(0);

    const pruned = strings(server.requests[2]?.messages);
    expect(pruned.join("\n")).not.toContain("line 300: payload");
    expect(
      pruned.some((s) => summary.test(s)),
      pruned.filter((s) => s.includes("TRUNCATED FILE")).join("\n"),
    ).toBe(true);
    expect(pruned.some((s) => notice.test(s))).toBe(true);
    // context_restore: the file is back, at the end of the conversation.
    const restored = strings(server.requests[3]?.messages.at(-1)).join("\n");
    expect(restored).toContain("line 300: payload");
    expect(restored).toContain(`<original id="${id}"`);
  }, 240_000);
});
