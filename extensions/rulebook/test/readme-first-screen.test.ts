import { readFileSync } from "node:fs";
import { closeAfterEach, fauxAssistantMessage, fauxToolCall } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { recordedSession, toolResults } from "./support.ts";

// The README's first screen, as a new user follows it: its example rule file and its first setting, in a real pi
// session. If the README's example changes, this runs the new one.

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

/** The README's example: the rule file's path (named just before the block) and its text. */
function exampleRule(): { path: string; text: string } {
  const section = README.slice(README.indexOf("## A rule\n"));
  const path = /`([^`]+\.md)` in your project/.exec(section)?.[1];
  const text = /```markdown\n([\s\S]*?)```/.exec(section)?.[1];
  if (!path || !text) throw new Error("README: no example rule under '## A rule'");
  return { path, text };
}

/** The README's first setting (the JSON block under "The setting to change first"). */
function firstSetting(): Record<string, unknown> {
  const section = README.slice(README.indexOf("## The setting to change first\n"));
  return JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!) as Record<string, unknown>;
}

const keep = closeAfterEach(afterEach);

describe("the README's first screen", () => {
  it("its example rule is listed with its description and attached to a read of a matching file", async () => {
    const { path, text } = exampleRule();
    const { t, contexts } = await recordedSession(
      keep,
      [fauxAssistantMessage([fauxToolCall("read", { path: "src/api/users.ts" })]), fauxAssistantMessage("done")],
      { files: { [path]: text, "src/api/users.ts": "export const users = [];\n" } },
    );
    await t.prompt("add an endpoint");
    const name = path.replace(/^.*\//, "").replace(/\.md$/, "");
    const description = /^description: (.*)$/m.exec(text)![1]!;
    expect(contexts[0]!.systemPrompt).toContain(`<rule name="${name}">\n<description>${description}</description>`);
    expect(toolResults(contexts[1]!)[0]!.text).toContain(`<rule name="${name}"`);
    expect(t.extensionErrors).toEqual([]);
  });

  it("its first setting turns a rule off by name and a tool's rules off", async () => {
    const settings = firstSetting();
    const { disabledRules, disabledProviders } = settings["rulebook"] as {
      disabledRules: string[];
      disabledProviders: string[];
    };
    const { t, contexts } = await recordedSession(keep, [fauxAssistantMessage("ok")], {
      files: {
        [`.pi/rules/${disabledRules[0]}.md`]: "---\nalwaysApply: true\n---\nOFF BY NAME",
        [`.${disabledProviders[0]}/rules/style.md`]: "---\ntrigger: always_on\n---\nOFF BY TOOL",
        ".pi/rules/kept.md": "---\nalwaysApply: true\n---\nKEPT",
      },
      projectSettings: settings,
    });
    await t.prompt("hi");
    expect(contexts[0]!.systemPrompt).toContain("KEPT");
    expect(contexts[0]!.systemPrompt).not.toContain("OFF BY NAME");
    expect(contexts[0]!.systemPrompt).not.toContain("OFF BY TOOL");
  });
});
