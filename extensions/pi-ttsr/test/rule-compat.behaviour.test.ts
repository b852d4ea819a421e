import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { closeAfterEach, createTestSession, fauxText, fauxToolCall, type TestSession } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import ttsrExtension from "../src/extension.ts";
import { eventProbe, recorder, ruleFile, sentText } from "./helpers.ts";

// Rules written for the reference TTSR (oh-my-pi) and for other engines, in a real pi session (patched pi).

const keep = closeAfterEach(afterEach);

function toolRuns(session: TestSession): string[] {
  return session.events.flatMap((e) => (e.type === "tool_execution_start" ? [JSON.stringify(e.args)] : []));
}

describe("the reference's rule keys", () => {
  it("interruptMode: never on a rule is honoured while the setting says always: no abort, a follow-up", async () => {
    const r = recorder();
    const t = await createTestSession({
      files: {
        ".pi/rules/no-eval.md": ruleFile(
          { condition: "\\beval\\(", scope: "text", interruptMode: "never" },
          "Never call eval().",
        ),
      },
      projectSettings: { ttsr: { interruptMode: "always" } },
      extensions: [ttsrExtension],
      model: {
        kind: "faux",
        responses: [r.reply("Just eval(input) it and keep going."), r.reply("Use JSON.parse instead.")],
      },
    }).then(keep);
    await t.prompt("go");
    expect(r.contexts).toHaveLength(2);
    const second = sentText(r.contexts[1]);
    expect(second).toContain("Just eval(input) it and keep going."); // not interrupted
    expect(second).toContain('<system-reminder reason=\\"rule_violation\\" rule=\\"no-eval\\"');
    expect(second).not.toContain("system-interrupt");
  });

  it("interruptMode: tool-only on a rule: a text match is a follow-up, a tool-call match aborts the call", async () => {
    const r = recorder();
    const t = await createTestSession({
      files: {
        ".pi/rules/no-secret.md": ruleFile(
          { condition: "SECRET-\\d+", interruptMode: "tool-only", maxFirings: 2 },
          "Never write secrets.",
        ),
      },
      extensions: [ttsrExtension],
      model: {
        kind: "faux",
        responses: [
          r.reply("The key is SECRET-123, I will write it to a file now."),
          r.reply([fauxToolCall("write", { path: "a.txt", content: "key=SECRET-123\n".repeat(20) })]),
          r.reply([fauxToolCall("write", { path: "a.txt", content: "key=<env>\n" })]),
          r.reply("done"),
        ],
      },
    }).then(keep);
    await t.prompt("go");
    expect(r.contexts).toHaveLength(4);
    // The text went through whole (no abort on prose) and the rule followed it as a reminder.
    expect(sentText(r.contexts[1])).toContain("The key is SECRET-123, I will write it to a file now.");
    expect(sentText(r.contexts[1])).toContain('<system-reminder reason=\\"rule_violation\\" rule=\\"no-secret\\"');
    // The tool call was aborted before it ran.
    expect(sentText(r.contexts[2])).toContain('<system-interrupt reason=\\"rule_violation\\" rule=\\"no-secret\\"');
    expect(toolRuns(t).filter((a) => a.includes("SECRET"))).toEqual([]);
    expect(readFileSync(join(t.cwd, "a.txt"), "utf8")).toBe("key=<env>\n");
  });

  it("a file-glob condition (`*.rs`) stops a write of a matching path before it runs, not of another", async () => {
    const r = recorder();
    const t = await createTestSession({
      files: { ".pi/rules/rust.md": ruleFile({ condition: "*.rs" }, "Rust files are generated; edit the schema.") },
      extensions: [ttsrExtension],
      model: {
        kind: "faux",
        responses: [
          r.reply([fauxToolCall("write", { path: "notes.go", content: "package main\n" })]),
          r.reply([fauxToolCall("write", { path: "src/main.rs", content: "fn main() {}\n".repeat(20) })]),
          r.reply("I will edit the schema instead."),
        ],
      },
    }).then(keep);
    await t.prompt("go");
    expect(readFileSync(join(t.cwd, "notes.go"), "utf8")).toBe("package main\n");
    expect(existsSync(join(t.cwd, "src", "main.rs"))).toBe(false);
    expect(sentText(r.contexts[2])).toContain("Rust files are generated");
    expect(sentText(r.contexts[2])).toContain('rule=\\"rust\\" path=\\".pi/rules/rust.md\\"');
  });

  it("a bare tool name in scope (`scope: bash`) watches that tool only", async () => {
    const r = recorder();
    const t = await createTestSession({
      files: { ".pi/rules/no-rm.md": ruleFile({ condition: "rm -rf", scope: "bash" }, "Do not delete trees.") },
      extensions: [ttsrExtension],
      model: {
        kind: "faux",
        responses: [
          r.reply([fauxText("I would rm -rf it."), fauxToolCall("write", { path: "n.md", content: "rm -rf x\n" })]),
          r.reply([fauxToolCall("bash", { command: "rm -rf build && echo gone" })]),
          r.reply("ok, I will not."),
        ],
      },
    }).then(keep);
    await t.prompt("go");
    expect(readFileSync(join(t.cwd, "n.md"), "utf8")).toBe("rm -rf x\n"); // not the bash tool: untouched
    expect(toolRuns(t).filter((a) => a.includes("rm -rf build"))).toEqual([]);
    expect(sentText(r.contexts[2])).toContain("Do not delete trees.");
  });
});

describe("rules written for other engines", () => {
  it("a leading (?i) is a flag: the rule fires on any case", async () => {
    const r = recorder();
    const t = await createTestSession({
      files: { ".pi/rules/todo.md": ruleFile({ condition: "(?i)\\btodo\\b", scope: "text" }, "Finish the work.") },
      extensions: [ttsrExtension],
      model: { kind: "faux", responses: [r.reply("I left a ToDo here for later work."), r.reply("Done fully.")] },
    }).then(keep);
    await t.prompt("go");
    expect(r.contexts).toHaveLength(2);
    expect(sentText(r.contexts[1])).toContain("Finish the work.");
  });

  it("a Windsurf rule in .pi/rules is no stream regex: writing its trigger word does not interrupt", async () => {
    const r = recorder();
    const probe = eventProbe();
    const t = await createTestSession({
      files: { ".pi/rules/style.md": "---\ntrigger: always_on\n---\nUse tabs.\n" },
      extensions: [ttsrExtension, probe.factory],
      model: { kind: "faux", responses: [r.reply("Set the rule to always_on and model_decision.")] },
    }).then(keep);
    await t.prompt("go");
    expect(r.contexts).toHaveLength(1);
    expect(probe.status).toEqual([expect.objectContaining({ rules: expect.not.arrayContaining(["style"]) })]);
  });

  it("settings keys named like object members are reported by file and key; TTSR stays on", async () => {
    const r = recorder();
    const probe = eventProbe();
    const t = await createTestSession({
      files: {
        ".pi/rules/no-eval.md": ruleFile({ condition: "\\beval\\(", scope: "text" }, "Never call eval()."),
        ".pi/settings.json":
          '{"ttsr":{"constructor":1,"toString":"x","hasOwnProperty":2,"__proto__":{"enabled":false}}}',
      },
      extensions: [ttsrExtension, probe.factory],
      model: {
        kind: "faux",
        responses: [r.reply("Just eval(input) and then much more text."), r.reply("JSON.parse.")],
      },
    }).then(keep);
    await t.prompt("go");
    expect(r.contexts).toHaveLength(2);
    expect(sentText(r.contexts[1])).toContain("system-interrupt");
    const status = probe.status[0] as { active: boolean; warnings: string[] };
    expect(status.active).toBe(true);
    for (const key of ["constructor", "toString", "hasOwnProperty", "__proto__"]) {
      expect(status.warnings.join("\n")).toContain(`.pi/settings.json: ttsr.${key}: unknown key`);
    }
  });
});
