import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
  closeAfterEach,
  createTestSession,
  type FauxModelOption,
  fauxText,
  fauxThinking,
  fauxToolCall,
  inlineTool,
  type TestSession,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { INJECTION_ENTRY } from "../src/delivery/injection.ts";
import ttsrExtension from "../src/extension.ts";
import { eventProbe, recorder, ruleFile, sentText } from "./helpers.ts";

const NO_CONSOLE = ruleFile(
  { description: "no console.log", condition: "console\\.log\\(", scope: "text" },
  "Use the project logger (`log.info`) instead of console.log.",
);
const NO_ANY_TS = ruleFile(
  { condition: ":\\s*any\\b", scope: "tool:write(*.ts)" },
  "Do not use the any type; use unknown and narrow it.",
);

const keep = closeAfterEach(afterEach);

/** pi-ttsr alone in a session on the faux model, which answers `responses` in order (most tests here). */
function ttsrSession(options: {
  files: Record<string, string>;
  responses: NonNullable<FauxModelOption["responses"]>;
  ttsr?: Record<string, unknown>;
  persist?: boolean;
}): Promise<TestSession> {
  return createTestSession({
    files: options.files,
    ...(options.ttsr ? { projectSettings: { ttsr: options.ttsr } } : {}),
    extensions: [ttsrExtension],
    ...(options.persist ? { persist: true } : {}),
    model: { kind: "faux", responses: options.responses },
  }).then(keep);
}

function assistantTextDeltas(session: TestSession, messageIndex: number): string[] {
  // Deltas of the n-th assistant message that started (aborted ones included).
  let index = -1;
  const out: string[] = [];
  for (const e of session.events) {
    if (e.type === "message_start" && e.message.role === "assistant") index++;
    if (index === messageIndex && e.type === "message_update" && e.assistantMessageEvent.type === "text_delta") {
      out.push(e.assistantMessageEvent.delta);
    }
  }
  return out;
}

function injectionEntries(session: TestSession) {
  return session
    .readSessionEntries()
    .filter((e) => e.type === "custom" && (e as { customType?: string }).customType === INJECTION_ENTRY.customType)
    .map((e) => (e as { data: { rules: string[]; kind: string } }).data);
}

describe("interrupting prose match (patched pi)", () => {
  it("aborts on the completing delta, injects the rule hidden, and retries; the rule cost 0 prompt tokens before", async () => {
    const r = recorder();
    const probe = eventProbe();
    const seen: Array<{ chunk: string; attempt: number }> = [];
    const observer = (pi: ExtensionAPI) =>
      pi.on("stream_text", (e) => {
        seen.push({ chunk: e.chunk, attempt: e.attempt });
        return undefined;
      });
    const t = await createTestSession({
      files: { ".pi/rules/no-console.md": NO_CONSOLE },
      extensions: [observer, ttsrExtension, probe.factory],
      persist: true,
      model: {
        kind: "faux",
        responses: [
          r.reply("Sure. First I will call console.log(value) and then keep talking for a long while after it."),
          r.reply("Sure. I will call log.info(value)."),
        ],
      },
    }).then(keep);
    const final = await t.prompt("print the value");
    expect(final?.content).toEqual([{ type: "text", text: "Sure. I will call log.info(value)." }]);
    expect(r.contexts).toHaveLength(2);
    // Zero cost until it fires: the first request carries nothing of the rule.
    expect(sentText(r.contexts[0])).not.toContain("project logger");
    // The retry carries the interrupt, and not the discarded partial.
    const second = sentText(r.contexts[1]);
    expect(second).toContain('<system-interrupt reason=\\"rule_violation\\" rule=\\"no-console\\"');
    expect(second).toContain("project logger");
    expect(second).not.toContain("console.log(value)");
    // The match completed in the last delta the stream consumed: zero deltas after it.
    const firstAttempt = seen.filter((d) => d.attempt === 0).map((d) => d.chunk);
    expect(firstAttempt.join("")).toMatch(/console\.log\($/);
    expect(firstAttempt.slice(0, -1).join("")).not.toMatch(/console\.log\(/);
    // pi never showed the completing delta as a message update.
    expect(assistantTextDeltas(t, 0).join("")).toBe(firstAttempt.slice(0, -1).join(""));
    // Persisted, announced.
    expect(injectionEntries(t)).toEqual([expect.objectContaining({ rules: ["no-console"], kind: "interrupt" })]);
    expect(probe.triggered).toEqual([
      expect.objectContaining({ kind: "interrupt", rules: [expect.objectContaining({ name: "no-console" })] }),
    ]);
    expect(probe.status).toEqual([
      expect.objectContaining({ active: true, patched: true, rules: expect.arrayContaining(["no-console"]) }),
    ]);
  });

  it("watches the thinking stream when the scope says so", async () => {
    const r = recorder();
    const t = await createTestSession({
      files: {
        ".pi/rules/no-rm.md": ruleFile({ condition: "rm -rf /", scope: "thinking" }, "Never plan to delete the root."),
      },
      extensions: [ttsrExtension],
      model: {
        kind: "faux",
        reasoning: true,
        responses: [
          r.reply([fauxThinking("I could just rm -rf / and start over."), fauxText("ok")]),
          r.reply("Let me look first."),
        ],
      },
      thinkingLevel: "low",
    }).then(keep);
    const final = await t.prompt("clean up");
    expect(r.contexts).toHaveLength(2);
    expect(sentText(r.contexts[1])).toContain("Never plan to delete the root.");
    expect(final?.content).toEqual([{ type: "text", text: "Let me look first." }]);
  });

  it("keeps the partial before the reminder with contextMode keep", async () => {
    const r = recorder();
    const t = await ttsrSession({
      files: { ".pi/rules/no-console.md": NO_CONSOLE },
      ttsr: { contextMode: "keep" },
      responses: [r.reply("Plan: console.log(x) then more."), r.reply("Plan: log.info(x).")],
    });
    await t.prompt("go");
    const second = sentText(r.contexts[1]);
    expect(second).toContain("Plan: console.log(");
    expect(second).toContain("rule_violation");
  });

  it("contextMode keep keeps only the partial's text, never its thinking (a partial thinking block is unsigned)", async () => {
    const r = recorder();
    const t = await createTestSession({
      files: { ".pi/rules/no-console.md": NO_CONSOLE },
      projectSettings: { ttsr: { contextMode: "keep" } },
      extensions: [ttsrExtension],
      thinkingLevel: "high",
      model: {
        kind: "faux",
        reasoning: true,
        responses: [
          r.reply([fauxThinking("The user wants output. I will print it."), fauxText("Plan: console.log(x) then.")]),
          r.reply("Plan: log.info(x)."),
        ],
      },
    }).then(keep);
    await t.prompt("go");
    const kept = r.contexts[1]!.messages.filter((m) => m.role === "assistant");
    expect(kept).toHaveLength(1);
    expect(kept[0]!.content.map((c) => c.type)).toEqual(["text"]);
    expect(JSON.stringify(kept[0]!.content)).toContain("Plan: console.log(");
    expect(sentText(r.contexts[1])).not.toContain("I will print it");
  });

  it("fires a once rule a single time per session", async () => {
    const r = recorder();
    const t = await ttsrSession({
      files: { ".pi/rules/no-console.md": NO_CONSOLE },
      responses: [r.reply("a console.log(1)"), r.reply("fixed"), r.reply("again console.log(2) here")],
    });
    await t.prompt("one");
    const final = await t.prompt("two");
    expect(r.contexts).toHaveLength(3);
    expect(final?.content).toEqual([{ type: "text", text: "again console.log(2) here" }]);
  });

  it("fires again after the gap in after-gap mode", async () => {
    const r = recorder();
    const t = await ttsrSession({
      files: { ".pi/rules/no-console.md": NO_CONSOLE },
      ttsr: { repeatMode: "after-gap", repeatGap: 1 },
      responses: [r.reply("a console.log(1)"), r.reply("fixed"), r.reply("again console.log(2)"), r.reply("fixed 2")],
    });
    await t.prompt("one");
    const final = await t.prompt("two");
    expect(r.contexts).toHaveLength(4);
    expect(final?.content).toEqual([{ type: "text", text: "fixed 2" }]);
  });

  it("at the loop's abort cap the undelivered rule is revoked and stays eligible", async () => {
    const r = recorder();
    const files: Record<string, string> = {};
    for (const n of [1, 2, 3, 4]) files[`.pi/rules/r${n}.md`] = ruleFile({ condition: `BAD${n}!` }, `Rule ${n}.`);
    const t = await ttsrSession({
      files,
      persist: true,
      responses: [
        r.reply("a BAD1! b"),
        r.reply("a BAD2! b"),
        r.reply("a BAD3! b"),
        r.reply("a BAD4! b"),
        r.reply("again BAD4! here"),
        r.reply("fixed"),
      ],
    });
    const capped = await t.prompt("one");
    expect(capped?.stopReason).toBe("error");
    expect(r.contexts).toHaveLength(4);
    const final = await t.prompt("two");
    expect(r.contexts).toHaveLength(6);
    expect(sentText(r.contexts[5])).toContain("Rule 4.");
    expect(final?.content).toEqual([{ type: "text", text: "fixed" }]);
    expect(injectionEntries(t).map((e) => `${e.kind}:${e.rules.join(",")}`)).toEqual([
      "interrupt:r1",
      "interrupt:r2",
      "interrupt:r3",
      "interrupt:r4",
      "revoked:r4",
      "interrupt:r4",
    ]);
  });

  it("does nothing when ttsr.enabled is false", async () => {
    const r = recorder();
    const probe = eventProbe();
    const t = await createTestSession({
      files: { ".pi/rules/no-console.md": NO_CONSOLE },
      projectSettings: { ttsr: { enabled: false } },
      extensions: [ttsrExtension, probe.factory],
      model: { kind: "faux", responses: [r.reply("a console.log(1)")] },
    }).then(keep);
    await t.prompt("one");
    expect(r.contexts).toHaveLength(1);
    expect(probe.status).toEqual([expect.objectContaining({ active: false, patched: true, rules: [] })]);
  });
});

describe("with rulebook installed", () => {
  it("rulebook leaves stream rules to TTSR: 0 system-prompt tokens until the rule fires", async () => {
    const rulebookDir = dirname(createRequire(import.meta.url).resolve("@pi-rails/rulebook/package.json"));
    const listed = ruleFile({ description: "Describe the logging policy", alwaysApply: true }, "ALWAYS-RULE-BODY");
    const r = recorder();
    const t = await createTestSession({
      files: { ".pi/rules/no-console.md": NO_CONSOLE, ".pi/rules/always.md": listed },
      extensionPaths: [rulebookDir],
      extensions: [ttsrExtension],
      model: { kind: "faux", responses: [r.reply("x console.log(1) y"), r.reply("ok")] },
    }).then(keep);
    await t.prompt("go");
    expect(r.contexts).toHaveLength(2);
    expect(r.contexts[0]?.systemPrompt).toContain("ALWAYS-RULE-BODY"); // rulebook is active
    expect(sentText(r.contexts[0])).not.toContain("project logger");
    expect(sentText(r.contexts[0])).not.toContain("no-console");
    expect(sentText(r.contexts[1])).toContain("project logger");
  });
});

describe("non-interrupting matches", () => {
  it("queues a prose match and sends a hidden follow-up after the message", async () => {
    const r = recorder();
    const t = await ttsrSession({
      files: { ".pi/rules/no-console.md": NO_CONSOLE },
      ttsr: { interruptMode: "tool-only" },
      persist: true,
      responses: [r.reply("I used console.log(x) here."), r.reply("Noted, switching to log.info.")],
    });
    const final = await t.prompt("go");
    expect(r.contexts).toHaveLength(2);
    const second = sentText(r.contexts[1]);
    expect(second).toContain("I used console.log(x) here."); // the message was not interrupted
    expect(second).toContain('<system-reminder reason=\\"rule_violation\\" rule=\\"no-console\\"');
    expect(final?.content).toEqual([{ type: "text", text: "Noted, switching to log.info." }]);
    expect(injectionEntries(t)).toEqual([expect.objectContaining({ rules: ["no-console"], kind: "follow-up" })]);
  });

  it("does not take `any` of `anything` for `\\bany\\b`; a match only the end settles comes as a follow-up", async () => {
    const r = recorder();
    const t = await ttsrSession({
      files: { ".pi/rules/no-any.md": ruleFile({ condition: "\\bany\\b" }, "Say which type, not any.") },
      responses: [r.reply("Is there anything else? It returns any"), r.reply("It returns a number.")],
    });
    const final = await t.prompt("go");
    expect(r.contexts).toHaveLength(2);
    expect(sentText(r.contexts[1])).toContain("It returns any"); // not interrupted: the stream had ended
    expect(sentText(r.contexts[1])).toContain('<system-reminder reason=\\"rule_violation\\" rule=\\"no-any\\"');
    expect(final?.content).toEqual([{ type: "text", text: "It returns a number." }]);
  });

  it("prepends a reminder to exactly one sibling tool call's result, before the tool ran unchanged", async () => {
    const r = recorder();
    const t = await ttsrSession({
      files: { ".pi/rules/no-any.md": NO_ANY_TS },
      ttsr: { interruptMode: "prose-only" },
      persist: true,
      responses: [
        r.reply([
          fauxToolCall("write", { path: "a.ts", content: "export let x: any = 1;\n" }, { id: "call-a" }),
          fauxToolCall("write", { path: "b.ts", content: "export let y: any = 2;\n" }, { id: "call-b" }),
        ]),
        r.reply("done"),
      ],
    });
    await t.prompt("write files");
    expect(readFileSync(join(t.cwd, "a.ts"), "utf8")).toContain("x: any");
    const results = (r.contexts[1]?.messages ?? []).filter((m) => m.role === "toolResult");
    expect(results).toHaveLength(2);
    const texts = results.map((m) =>
      m.role === "toolResult" ? m.content.map((c) => (c.type === "text" ? c.text : "")) : [],
    );
    expect(texts[0]![0]).toMatch(/^<system-reminder reason="rule_violation" rule="no-any"/);
    expect(texts[0]!.length).toBe(2);
    expect(texts[1]!.join("")).not.toContain("system-reminder");
    expect(injectionEntries(t)).toEqual([expect.objectContaining({ rules: ["no-any"], kind: "tool-reminder" })]);
  });

  it("a reminder for a call that produced no result (unknown tool) is dropped: the rule stays eligible", async () => {
    const r = recorder();
    const t = await ttsrSession({
      files: { ".pi/rules/no-any.md": ruleFile({ condition: ":\\s*any\\b", scope: "tool" }, "Say which type.") },
      ttsr: { interruptMode: "never" },
      persist: true,
      responses: [
        r.reply([fauxToolCall("writ", { path: "a.ts", content: "let x: any = 1;\n" })]),
        r.reply([fauxToolCall("write", { path: "b.ts", content: "let y: any = 2;\n" })]),
        r.reply("done"),
      ],
    });
    await t.prompt("write files");
    // pi answered the unknown tool itself (no tool_result for extensions); the rule went on the next real call.
    const results = (r.contexts[2]?.messages ?? []).filter((m) => m.role === "toolResult");
    const texts = results.map((m) =>
      m.role === "toolResult" ? m.content.map((c) => (c.type === "text" ? c.text : "")) : [],
    );
    expect(texts).toHaveLength(2);
    expect(texts[0]!.join("")).not.toContain("system-reminder");
    expect(texts[1]![0]).toMatch(/^<system-reminder reason="rule_violation" rule="no-any"/);
    expect(injectionEntries(t)).toEqual([expect.objectContaining({ rules: ["no-any"], kind: "tool-reminder" })]);
  });

  it("keeps a tool's structured output when it puts a reminder before the tool's text", async () => {
    const r = recorder();
    const counter = inlineTool({
      name: "count",
      params: ["text"],
      outputSchema: { type: "object", properties: { length: { type: "number" } }, required: ["length"] },
      execute: async ({ text }) => ({ text: `${text.length} characters`, structuredContent: { length: text.length } }),
    });
    const t = await createTestSession({
      files: { ".pi/rules/no-secret.md": ruleFile({ condition: "SECRET-\\d+", scope: "tool" }, "Never send secrets.") },
      projectSettings: { ttsr: { interruptMode: "prose-only" } },
      extensions: [counter, ttsrExtension],
      model: { kind: "faux", responses: [r.reply([fauxToolCall("count", { text: "SECRET-42" })]), r.reply("done")] },
    }).then(keep);
    await t.prompt("count it");
    const result = t.session.messages.find((m) => m.role === "toolResult");
    expect(result?.content.map((c) => (c.type === "text" ? c.text : ""))).toEqual([
      expect.stringMatching(/^<system-reminder reason="rule_violation" rule="no-secret"/),
      "9 characters",
    ]);
    // Not part of the message the model gets: the finalized result carries it (for scripts, renderers, RPC).
    const ended = t.events.find((e) => e.type === "tool_execution_end");
    expect(ended?.type === "tool_execution_end" && ended.result).toMatchObject({ structuredContent: { length: 9 } });
  });
});

describe("interrupting tool match", () => {
  it("aborts a tool call whose streamed arguments match, before the tool runs; the path glob gates it", async () => {
    const r = recorder();
    const t = await ttsrSession({
      files: { ".pi/rules/no-any.md": NO_ANY_TS },
      responses: [
        r.reply([
          fauxText("Writing."),
          fauxToolCall("write", { path: "src/a.ts", content: "let x: any = 1;\n".repeat(20) }),
        ]),
        r.reply([fauxToolCall("write", { path: "notes.md", content: "x: any is fine in prose\n" })]),
        r.reply([fauxToolCall("write", { path: "src/a.ts", content: "let x: unknown = 1;\n" })]),
        r.reply("done"),
      ],
    });
    await t.prompt("write it");
    expect(r.contexts).toHaveLength(2 + 2);
    expect(sentText(r.contexts[1])).toContain("rule_violation");
    // The violating call never ran: the only write to src/a.ts is the clean one.
    const writes = t.events.flatMap((e) => (e.type === "tool_execution_start" ? [JSON.stringify(e.args)] : []));
    expect(writes.filter((w) => w.includes("src/a.ts"))).toEqual([
      JSON.stringify({ path: "src/a.ts", content: "let x: unknown = 1;\n" }),
    ]);
    // notes.md does not match the scope glob: it ran untouched.
    expect(readFileSync(join(t.cwd, "notes.md"), "utf8")).toContain("x: any");
    expect(readFileSync(join(t.cwd, "src/a.ts"), "utf8")).toBe("let x: unknown = 1;\n");
  });
});

describe("tool arguments", () => {
  it("matches what an edit writes, not the text it removes", async () => {
    const r = recorder();
    const t = await ttsrSession({
      files: {
        ".pi/rules/no-any.md": ruleFile({ condition: ":\\s*any\\b", scope: "tool:edit(*.ts)" }, "Never use any."),
        "src/a.ts": "export let x: any = 1;\n",
      },
      responses: [
        r.reply([fauxToolCall("edit", { path: "src/a.ts", edits: [{ oldText: "x: any", newText: "x: number" }] })]),
        r.reply("done"),
      ],
    });
    await t.prompt("fix the type");
    expect(r.contexts).toHaveLength(2);
    expect(sentText(r.contexts[1])).not.toContain("rule_violation");
    expect(readFileSync(join(t.cwd, "src/a.ts"), "utf8")).toBe("export let x: number = 1;\n");
  });
});

describe("repeat policy per rule", () => {
  it("maxFirings lets a once rule fire that many times per session", async () => {
    const r = recorder();
    const t = await ttsrSession({
      files: { ".pi/rules/twice.md": ruleFile({ condition: "BAD!", maxFirings: 2 }, "Not BAD!") },
      responses: [r.reply("a BAD! b"), r.reply("ok 1"), r.reply("a BAD! b"), r.reply("ok 2"), r.reply("a BAD! third")],
    });
    await t.prompt("one");
    await t.prompt("two");
    const third = await t.prompt("three");
    expect(r.contexts).toHaveLength(5);
    expect(third?.content).toEqual([{ type: "text", text: "a BAD! third" }]);
  });
});

describe("robustness", () => {
  it("skips a ReDoS rule with a warning and keeps streaming adversarial output", async () => {
    const r = recorder();
    const probe = eventProbe();
    const adversarial = `${"a".repeat(30_000)}!`;
    const t = await createTestSession({
      files: {
        ".pi/rules/redos.md": ruleFile({ condition: "(a+)+$" }, "exponential"),
        ".pi/rules/nested.md": ruleFile({ condition: "(a|aa)+b" }, "runs on the automaton"),
        ".pi/rules/bad.md": ruleFile({ condition: "(unclosed" }, "broken"),
      },
      extensions: [ttsrExtension, probe.factory],
      model: { kind: "faux", tokenSize: 8, responses: [r.reply(adversarial)] },
    }).then(keep);
    const started = performance.now();
    const final = await t.prompt("go");
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(final?.content).toEqual([{ type: "text", text: adversarial }]);
    expect(t.extensionErrors).toEqual([]);
    const status = probe.status[0] as { rules: string[]; warnings: string[] };
    expect(status.rules).toContain("nested");
    expect(status.rules).not.toContain("redos");
    expect(status.warnings.join("\n")).toMatch(/redos\.md \(condition\).*exponential backtracking/);
    expect(status.warnings.join("\n")).toMatch(/bad\.md \(condition\).*invalid regex/);
  });

  it("on stock pi, a response pi had read whole before the abort took effect is dropped too, and retried with the rule", async () => {
    // pi's faux model hands over a whole response before an abort can reach it, as a real one does when pi has read
    // the rest of the answer already; the interrupt itself (a real stream, cut off) runs in test/stock-pi.e2e.test.ts.
    await onStockPi(async () => {
      const r = recorder();
      const probe = eventProbe();
      const t = await createTestSession({
        files: { ".pi/rules/no-console.md": NO_CONSOLE },
        extensions: [ttsrExtension, probe.factory],
        persist: true,
        model: { kind: "faux", responses: [r.reply("I used console.log(x)."), r.reply("ok")] },
      }).then(keep);
      await t.prompt("go");
      // The retry starts a run of its own once pi settled: wait for it.
      await expect.poll(() => r.contexts.length).toBe(2);
      await t.session.agent.waitForIdle();
      expect(probe.status).toEqual([expect.objectContaining({ active: true, patched: false })]);
      expect(sentText(r.contexts[1])).not.toContain("I used console.log(x).");
      expect(sentText(r.contexts[1])).toContain("system-interrupt");
      expect(injectionEntries(t)).toEqual([expect.objectContaining({ rules: ["no-console"], kind: "interrupt" })]);
      const assistants = t.session.messages.filter((m) => m.role === "assistant");
      expect(assistants.map((m) => (m.role === "assistant" ? m.content.length : -1))).toEqual([0, 1]);
    });
  });

  it("on stock pi an interrupting tool call is stopped before it runs, and the run starts again with the rule", async () => {
    await onStockPi(async () => {
      const r = recorder();
      const t = await ttsrSession({
        files: { ".pi/rules/no-any.md": NO_ANY_TS },
        persist: true,
        responses: [r.reply([fauxToolCall("write", { path: "a.ts", content: "let x: any;\n" })]), r.reply("ok")],
      });
      await t.prompt("go");
      await expect.poll(() => r.contexts.length).toBe(2);
      await t.session.agent.waitForIdle();
      expect(existsSync(join(t.cwd, "a.ts"))).toBe(false);
      expect(sentText(r.contexts[1])).toContain("rule_violation");
      expect(sentText(r.contexts[1])).not.toContain("let x: any");
      expect(injectionEntries(t)).toEqual([expect.objectContaining({ rules: ["no-any"], kind: "interrupt" })]);
    });
  });

  it("on stock pi, past three interrupts in a row, a tool call that breaks a rule is blocked before it runs", async () => {
    await onStockPi(async () => {
      const r = recorder();
      const files: Record<string, string> = { ".pi/rules/no-any.md": NO_ANY_TS };
      for (const n of [1, 2, 3]) files[`.pi/rules/r${n}.md`] = ruleFile({ condition: `BAD${n}!` }, `Rule ${n}.`);
      const t = await ttsrSession({
        files,
        persist: true,
        responses: [
          r.reply("a BAD1! b"),
          r.reply("a BAD2! b"),
          r.reply("a BAD3! b"),
          r.reply([fauxToolCall("write", { path: "a.ts", content: "let x: any;\n" })]),
          r.reply("ok"),
        ],
      });
      await t.prompt("go");
      await expect.poll(() => r.contexts.length).toBe(5);
      await t.session.agent.waitForIdle();
      expect(existsSync(join(t.cwd, "a.ts"))).toBe(false);
      const result = r.contexts[4]?.messages.find((m) => m.role === "toolResult");
      expect(JSON.stringify(result)).toContain('rule=\\"no-any\\"');
      expect(injectionEntries(t).map((e) => `${e.kind}:${e.rules.join(",")}`)).toEqual([
        "interrupt:r1",
        "interrupt:r2",
        "interrupt:r3",
        "interrupt:no-any",
        "revoked:no-any",
        "tool-block:no-any",
      ]);
    });
  });

  it("on stock pi a non-interrupting tool match is a reminder on that call's result, after the tool ran", async () => {
    await onStockPi(async () => {
      const r = recorder();
      const t = await ttsrSession({
        files: { ".pi/rules/no-any.md": NO_ANY_TS },
        ttsr: { interruptMode: "prose-only" },
        persist: true,
        responses: [r.reply([fauxToolCall("write", { path: "a.ts", content: "let x: any;\n" })]), r.reply("ok")],
      });
      await t.prompt("go");
      expect(readFileSync(join(t.cwd, "a.ts"), "utf8")).toBe("let x: any;\n");
      const result = r.contexts[1]?.messages.find((m) => m.role === "toolResult");
      const texts = result?.role === "toolResult" ? result.content.map((c) => (c.type === "text" ? c.text : "")) : [];
      expect(texts[0]).toMatch(/^<system-reminder reason="rule_violation" rule="no-any"/);
      expect(texts).toHaveLength(2);
      expect(injectionEntries(t)).toEqual([expect.objectContaining({ rules: ["no-any"], kind: "tool-reminder" })]);
    });
  });
});

/** Runs `body` in a process that looks like stock pi: the patched pi's mark is removed, then restored. */
async function onStockPi(body: () => Promise<void>): Promise<void> {
  const key = Symbol.for("@pi-rails/pi-patch");
  const marks = globalThis as Record<symbol, unknown>;
  const saved = marks[key];
  delete marks[key];
  try {
    await body();
  } finally {
    marks[key] = saved;
  }
}
