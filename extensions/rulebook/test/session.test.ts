import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "@earendil-works/pi-ai";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { readSessionEntries, sessionBranch } from "@pi-rails/agent-core/kit";
import {
  closeAfterEach,
  createTestSession,
  fauxAssistantMessage,
  fauxToolCall,
  inlineTool,
  startModelServer,
  type TestSessionOptions,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import rulebook from "../src/extension.ts";
import { TTSR_STATUS_EVENT, type TtsrStatusPayload } from "../src/handoff/ttsr.ts";
import { PROMPT_SECTION } from "../src/prompt/render.ts";
import { ATTACHED_ENTRY } from "../src/session/entries.ts";
import { attachedIn, recordedSession, systemOf, toolResults, toolTextsOf, warnedIn } from "./support.ts";

/** Rule files of several formats, written into the test project. */
const FILES: Record<string, string> = {
  ".pi/rules/style.md": "---\nalwaysApply: true\n---\nUse two spaces.",
  ".cursor/rules/api.mdc": "---\ndescription: HTTP API conventions\nglobs: src/api/**\n---\nReturn JSON errors.",
  ".claude/rules/tests.md": "---\npaths: '**/*.test.ts'\n---\nUse vitest.",
  ".pi/rules/no-console.md": "---\ndescription: Never log\ncondition: console\\.log\n---\nDo not use console.log.",
  ".windsurf/rules/manual.md": "---\ntrigger: manual\n---\nOnly when asked.",
  "src/api/users.ts": "export const users = [];\n",
  "src/api/orders.ts": "export const orders = [];\n",
  "src/a.test.ts": "test('x', () => {});\n",
};

/** A stand-in for pi-ttsr's announcement: the real event on the real bus. */
const ttsrAnnouncer = (pi: ExtensionAPI) => {
  pi.on("session_start", () => {
    pi.events.emit(TTSR_STATUS_EVENT, { active: true, patched: false } satisfies TtsrStatusPayload);
  });
};

const keep = closeAfterEach(afterEach);
/** A recorded session in the project of FILES. */
const session = (replies: Parameters<typeof recordedSession>[1], options: TestSessionOptions = {}) =>
  recordedSession(keep, replies, { files: FILES, ...options });

const PROMPT_WITHOUT_TTSR = `# Always-apply rules

Follow these rules at all times.

<rule name="style">
Use two spaces.
</rule>

# Rules

Read a rule with the read_rule tool (its name, or rule://<name>) when your task matches its description or globs, before you act.

<rules>
<rule name="api">
<description>HTTP API conventions</description>
<glob>src/api/**</glob>
<note>attached automatically when you read or edit a matching file</note>
</rule>
<rule name="tests">
<glob>**/*.test.ts</glob>
<note>attached automatically when you read or edit a matching file</note>
</rule>
<rule name="no-console">
<description>Never log</description>
<note>stream rule; read it before writing code it may concern</note>
</rule>
</rules>`;

describe("rulebook in a real pi session", () => {
  it("sends the model the exact system prompt: base, always-apply contents, then the Rules section", async () => {
    const { t, contexts } = await session([fauxAssistantMessage("ok"), fauxAssistantMessage("ok")]);
    const base = t.session.systemPrompt;
    expect(base).not.toContain("# Rules");
    await t.prompt("hello");
    await t.prompt("again");
    expect(contexts).toHaveLength(2);
    // rulebook's section of pi's structured prompt, after pi's own sections
    const expected = `${base}\n\n<rulebook>\n${PROMPT_WITHOUT_TTSR}\n</rulebook>`;
    expect(contexts[0]!.systemPrompt).toBe(expected);
    // stable turn to turn (prompt-cache friendly), not appended twice: pi sent the section once, in one patch
    expect(contexts[1]!.systemPrompt).toBe(expected);
    const patches = (context: Context) =>
      context.messages.filter((m) => m.role === "system" && m.sections?.[PROMPT_SECTION] !== undefined);
    expect(patches(contexts[0]!)).toHaveLength(1);
    expect(patches(contexts[1]!)).toEqual(patches(contexts[0]!));
    // the stream-condition warning is shown once per session, even over two prompts
    const warned = warnedIn(t);
    expect(warned.filter((m) => m.includes("pi-ttsr is not loaded"))).toHaveLength(1);
    expect(warned.filter((m) => m.includes('"no-console"'))).toHaveLength(1);
  });

  it("leaves stream-condition rules to pi-ttsr when it announces itself on the event bus", async () => {
    const { t, contexts } = await session([fauxAssistantMessage("ok")], { extensions: [rulebook, ttsrAnnouncer] });
    const base = t.session.systemPrompt;
    await t.prompt("hello");
    const withoutTtsr = PROMPT_WITHOUT_TTSR.replace(
      '<rule name="no-console">\n<description>Never log</description>\n<note>stream rule; read it before writing code it may concern</note>\n</rule>\n',
      "",
    );
    expect(contexts[0]!.systemPrompt).toBe(`${base}\n\n<rulebook>\n${withoutTtsr}\n</rulebook>`);
    const warned = warnedIn(t);
    expect(warned.some((m) => m.includes("pi-ttsr"))).toBe(false);
  });

  it("read_rule returns rule contents by name or rule:// and errors with the available names otherwise", async () => {
    const { t, contexts } = await session(
      [
        fauxAssistantMessage([
          fauxToolCall("read_rule", { name: "rule://api" }),
          fauxToolCall("read_rule", { name: "style" }),
          fauxToolCall("read_rule", { name: "nope" }),
          fauxToolCall("read_rule", { name: "no-console" }),
          fauxToolCall("read_rule", { name: "manual" }),
          fauxToolCall("read_rule", { name: "../.pi/rules/style.md" }),
        ]),
        fauxAssistantMessage("done"),
      ],
      { extensions: [rulebook, ttsrAnnouncer] },
    );
    await t.prompt("read rules");
    const available = "Available rules: style, api, tests";
    expect(toolResults(contexts[1]!)).toEqual([
      { text: "Return JSON errors.", isError: false },
      { text: "Use two spaces.", isError: false },
      { text: `Unknown rule "nope". ${available}`, isError: true },
      // with pi-ttsr loaded, stream rules are its business, not readable here
      { text: `Unknown rule "no-console". ${available}`, isError: true },
      { text: `Unknown rule "manual". ${available}`, isError: true },
      { text: `Unknown rule "../.pi/rules/style.md". ${available}`, isError: true },
    ]);
  });

  it("attaches a glob rule once per session to the result of a read or edit of a matching file", async () => {
    const { t, contexts } = await session([
      fauxAssistantMessage([fauxToolCall("read", { path: "src/api/users.ts" })]),
      fauxAssistantMessage([
        fauxToolCall("read", { path: "src/api/orders.ts" }),
        fauxToolCall("edit", {
          path: "src/a.test.ts",
          edits: [{ oldText: "test('x'", newText: "test('y'" }],
        }),
      ]),
      fauxAssistantMessage("done"),
    ]);
    await t.prompt("work");
    const first = toolResults(contexts[1]!);
    expect(first).toHaveLength(1);
    expect(first[0]!.text).toContain("export const users = [];");
    expect(first[0]!.text).toContain(
      '<rule name="api" reason="auto-attached: src/api/users.ts matches its globs">\nReturn JSON errors.\n</rule>',
    );
    const later = toolResults(contexts[2]!).slice(1);
    // api was already attached: not again; tests is attached to the edit of a test file
    expect(later[0]!.text).not.toContain('<rule name="api"');
    expect(later[1]!.text).toContain(
      '<rule name="tests" reason="auto-attached: src/a.test.ts matches its globs">\nUse vitest.\n</rule>',
    );
    expect(attachedIn(t)).toEqual([
      { names: ["api"], path: "src/api/users.ts" },
      { names: ["tests"], path: "src/a.test.ts" },
    ]);
  });

  it("after a reload (new extension instance, same session) attached rules are not repeated and new rule files appear", async () => {
    // reload() resets pi-ai's API registry, which drops the faux provider: use the loopback server instead
    const server = keep(
      await startModelServer({
        script: [
          { toolCalls: [{ name: "read", arguments: { path: "src/api/users.ts" } }] },
          { text: "done" },
          { toolCalls: [{ name: "read", arguments: { path: "src/api/orders.ts" } }] },
          { text: "done" },
        ],
      }),
    );
    const t = keep(
      await createTestSession({ files: FILES, extensions: [rulebook], model: { kind: "loopback", server } }),
    );
    await t.prompt("first");
    const toolText = (i: number) => toolTextsOf(server, i);
    expect(toolText(1)[0]).toContain('<rule name="api"');
    writeFileSync(join(t.cwd, ".pi/rules/new.md"), "---\ndescription: Added later\n---\nNew rule.");
    await t.session.reload();
    const second = await t.prompt("second");
    expect(second?.errorMessage).toBeUndefined();
    const system = systemOf(server, 2);
    expect(system).toContain('<rule name="new">\n<description>Added later</description>\n</rule>');
    expect(toolText(3)).toEqual([expect.stringContaining('<rule name="api"'), "export const orders = [];\n"]);
  });

  it("a reload repeats none of the warnings already said; a rule file broken since is said once", async () => {
    const server = keep(await startModelServer({ script: [{ text: "one" }, { text: "two" }, { text: "three" }] }));
    const t = keep(
      await createTestSession({ files: FILES, extensions: [rulebook], model: { kind: "loopback", server } }),
    );
    await t.prompt("one");
    writeFileSync(join(t.cwd, ".pi/rules/bad.md"), '---\nalwaysApply: "yes"\n---\nBad.');
    for (const prompt of ["two", "three"]) {
      await t.session.reload(); // a new extension instance, the same session
      await t.prompt(prompt);
    }
    const warned = warnedIn(t);
    expect(warned.filter((m) => m.includes("pi-ttsr is not loaded"))).toHaveLength(1);
    expect(warned.filter((m) => m.includes("bad.md: alwaysApply"))).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
  });

  it("damaged rulebook:attached entries in the session file are skipped, not fatal; usable names still count", async () => {
    const server = keep(
      await startModelServer({
        script: [
          {
            toolCalls: [
              { name: "read", arguments: { path: "src/api/users.ts" } },
              { name: "read", arguments: { path: "src/a.test.ts" } },
            ],
          },
          { text: "done" },
        ],
      }),
    );
    const t = keep(
      await createTestSession({ files: FILES, extensions: [rulebook], model: { kind: "loopback", server } }),
    );
    const manager = t.session.sessionManager;
    manager.appendCustomEntry(ATTACHED_ENTRY.customType, "not an object");
    manager.appendCustomEntry(ATTACHED_ENTRY.customType, { names: "api" });
    manager.appendCustomEntry(ATTACHED_ENTRY.customType, { names: [7, "tests"], path: 3 });
    await t.session.reload(); // a new extension instance reads the entries at session_start
    expect((await t.prompt("work"))?.errorMessage).toBeUndefined();
    const [users, test] = toolTextsOf(server, 1);
    expect(users).toContain('<rule name="api"'); // `names: "api"` is not a list: skipped
    expect(test).not.toContain("<rule"); // "tests" came from the usable part of the third entry
    expect(t.extensionErrors).toEqual([]);
  });

  it("glob attach can be switched off in settings; bad settings are reported with file and key, not a crash", async () => {
    const { t, contexts } = await session(
      [fauxAssistantMessage([fauxToolCall("read", { path: "src/api/users.ts" })]), fauxAssistantMessage("done")],
      { projectSettings: { rulebook: { globAttach: false, disabledRules: ["style"], typo: true } } },
    );
    await t.prompt("work");
    expect(toolResults(contexts[1]!)[0]!.text).not.toContain("<rule");
    expect(contexts[0]!.systemPrompt).not.toContain("Use two spaces.");
    expect(contexts[0]!.systemPrompt).not.toContain('<rule name="tests">');
    expect(t.extensionErrors).toEqual([]);
    const warned = warnedIn(t);
    expect(warned).toContainEqual(expect.stringMatching(/\.pi\/settings\.json: rulebook\.typo: unknown key/));
  });
});

describe("rulebook on pi 1.6's prompt and tools", () => {
  it("a run started by a custom message (pi.sendMessage with triggerTurn) gets the rules too", async () => {
    const { t, contexts } = await session([fauxAssistantMessage("ok")]);
    await t.session.sendCustomMessage({ customType: "ping", content: "go", display: false }, { triggerTurn: true });
    await t.session.waitForIdle();
    expect(contexts).toHaveLength(1);
    expect(contexts[0]!.systemPrompt).toContain(`<rulebook>\n${PROMPT_WITHOUT_TTSR}\n</rulebook>`);
  });

  it("after an extension that replaced the whole prompt, the rules are appended to its text", async () => {
    const replacer = (pi: ExtensionAPI) => {
      pi.on("before_agent_start", () => ({ systemPrompt: "A prompt of my own." }));
    };
    const { t, contexts } = await session([fauxAssistantMessage("ok")], { extensions: [replacer, rulebook] });
    await t.prompt("hello");
    expect(contexts[0]!.systemPrompt).toBe(`A prompt of my own.\n\n${PROMPT_WITHOUT_TTSR}\n`);
  });

  it("project settings count only while pi trusts the project; ignoring them is said once", async () => {
    const { t, contexts } = await session(
      [fauxAssistantMessage("ok"), fauxAssistantMessage("ok"), fauxAssistantMessage("ok")],
      { projectSettings: { rulebook: { disabledRules: ["style"] }, ttsr: { disabledRules: ["api"] } } },
    );
    await t.prompt("trusted");
    expect(contexts[0]!.systemPrompt).not.toContain("Use two spaces.");
    expect(contexts[0]!.systemPrompt).not.toContain('<rule name="api">');
    // what /trust does when the user declines: pi drops the project's settings, and so does rulebook
    t.session.settingsManager.setProjectTrusted(false);
    await t.prompt("untrusted");
    await t.prompt("again");
    expect(contexts[1]!.systemPrompt).toContain('<rule name="style">\nUse two spaces.\n</rule>');
    expect(contexts[1]!.systemPrompt).toContain('<rule name="api">');
    const warned = warnedIn(t);
    expect(warned.filter((m) => m.includes("trust"))).toEqual([
      `${join(t.cwd, ".pi", "settings.json")}: rulebook, ttsr.disabledRules: ignored: pi does not trust this project (trust it with /trust, or --approve for one run)`,
    ]);
  });

  it("a read another tool makes (a codemode-style nested call) attaches nothing; the model's own read does", async () => {
    const peek = inlineTool({
      name: "peek",
      params: ["path"],
      async execute({ path }, ctx) {
        return { text: `nested result: ${JSON.stringify(await ctx.executeTool("read", { path }))}` };
      },
    });
    const { t, contexts } = await session(
      [
        fauxAssistantMessage([fauxToolCall("peek", { path: "src/api/users.ts" })]),
        fauxAssistantMessage([fauxToolCall("read", { path: "src/api/users.ts" })]),
        fauxAssistantMessage("done"),
      ],
      { extensions: [rulebook, peek] },
    );
    await t.prompt("work");
    const [peeked] = toolResults(contexts[1]!);
    expect(peeked!.text).toContain("export const users = [];"); // the nested read ran and reached peek
    expect(peeked!.text).not.toContain("<rule");
    const read = toolResults(contexts[2]!)[1]!;
    expect(read.text).toContain('<rule name="api" reason="auto-attached: src/api/users.ts matches its globs">');
    expect(attachedIn(t)).toEqual([{ names: ["api"], path: "src/api/users.ts" }]);
  });
});

describe("rulebook on a branch of the session tree", () => {
  it("a rule attached on another branch is attached again here, after /tree and after a reload on this branch", async () => {
    // reload() resets pi-ai's API registry, which drops the faux provider: use the loopback server instead
    const readUsers = { toolCalls: [{ name: "read", arguments: { path: "src/api/users.ts" } }] };
    const script = [readUsers, { text: "done" }, readUsers, { text: "done" }, readUsers, { text: "done" }];
    const server = keep(await startModelServer({ script }));
    const t = keep(
      await createTestSession({ files: FILES, extensions: [rulebook], model: { kind: "loopback", server } }),
    );
    const manager = t.session.sessionManager;
    /** /tree to the newest user message: the branch continues from before it, its read and the attachment behind. */
    const backBeforeLastPrompt = async () => {
      const users = manager.getBranch().filter((e) => e.type === "message" && e.message.role === "user");
      expect((await t.session.navigateTree(users.at(-1)!.id)).cancelled).toBe(false);
    };
    const attachedApi = (request: number) =>
      toolTextsOf(server, request).map((text) => text.includes('<rule name="api"'));
    await t.prompt("first");
    expect(attachedApi(1)).toEqual([true]);
    await backBeforeLastPrompt(); // in-process: pi fires session_tree
    await t.prompt("second");
    expect(attachedApi(3)).toEqual([true]); // this branch's model never saw the rule
    await backBeforeLastPrompt();
    await t.session.reload(); // a new extension instance reads the branch at session_start
    await t.prompt("third");
    expect(attachedApi(5)).toEqual([true]);
    // three attachments on three branches in the file; the current branch holds its own one
    expect(attachedIn(t)).toHaveLength(3);
    expect(readSessionEntries(sessionBranch(manager), ATTACHED_ENTRY)).toEqual([
      { names: ["api"], path: "src/api/users.ts" },
    ]);
    expect(t.extensionErrors).toEqual([]);
  });
});
