import { readFileSync } from "node:fs";
import { type Context, getCurrentSystemPrompt } from "@earendil-works/pi-ai";
import { readSessionEntries } from "@pi-rails/agent-core/kit";
import {
  type closeAfterEach,
  createTestSession,
  type fauxAssistantMessage,
  type ModelServer,
  messageText,
  type TestSession,
  type TestSessionOptions,
} from "@pi-rails/testkit";
import { runCli } from "../src/cli/main.ts";
import rulebook from "../src/extension.ts";
import { ATTACHED_ENTRY, WARNINGS_ENTRY } from "../src/session/entries.ts";

/** What rulebook's tests share: what a session said and sent, a file discovery must skip, and the CLI in-process. */

/** The warnings a session said (its `rulebook:warnings` entries), in order. */
export const warnedIn = (t: TestSession): string[] =>
  readSessionEntries(t.session.sessionManager.getEntries(), WARNINGS_ENTRY).flatMap((d) => d.messages);

/** The attachments a session recorded (its `rulebook:attached` entries), on every branch. */
export const attachedIn = (t: TestSession) => readSessionEntries(t.session.sessionManager.getEntries(), ATTACHED_ENTRY);

/** Faux responses that record the prompt the model had (pi 1.6's system messages replayed) and the messages sent. */
export function recorder() {
  const contexts: Context[] = [];
  const step = (message: ReturnType<typeof fauxAssistantMessage>) => (context: Context) => {
    const systemPrompt = getCurrentSystemPrompt(context.messages);
    // tools carry schemas that structuredClone cannot copy; the messages are plain data
    contexts.push(JSON.parse(JSON.stringify({ systemPrompt, messages: context.messages })));
    return message;
  };
  return { contexts, step };
}

/**
 * A real pi session (rulebook alone unless `options.extensions` says otherwise) whose faux model answers `replies`
 * in order and records what it was sent; `keep` (the test file's `closeAfterEach`) disposes of it after the test.
 */
export async function recordedSession(
  keep: ReturnType<typeof closeAfterEach>,
  replies: ReturnType<typeof fauxAssistantMessage>[],
  options: TestSessionOptions = {},
) {
  const { contexts, step } = recorder();
  const model = { kind: "faux", responses: replies.map(step) } as const;
  const t = keep(await createTestSession({ extensions: [rulebook], ...options, model }));
  return { t, contexts };
}

/** The tool results of a recorded context: their text, and whether each was an error. */
export const toolResults = (context: Context) =>
  context.messages
    .filter((m) => m.role === "toolResult")
    .map((m) => ({ text: messageText(m.content), isError: m.isError }));

/** The system prompt of the loopback server's `i`th request. */
export const systemOf = (server: ModelServer, i = 0) =>
  messageText(server.requests[i]!.messages.find((m) => m.role === "system" || m.role === "developer")?.content);

/** The tool results of the loopback server's `i`th request, as text. */
export const toolTextsOf = (server: ModelServer, i: number) =>
  server.requests[i]!.messages.filter((m) => m.role === "tool").map((m) => messageText(m.content));

/** A rule file whose frontmatter's YAML aliases expand to millions of values (the corpus's billion laughs). */
export const ALIAS_BOMB = readFileSync(
  new URL("./fixtures/corpus/billion-laughs/dot-cursor/rules/laughs.mdc", import.meta.url),
  "utf8",
);

/** rulebook's CLI, run in-process with an empty env: its exit code, and what it printed without the last newline. */
export async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { stdout: (text) => out.push(text), stderr: (text) => err.push(text) }, {});
  return { code, out: out.join("").replace(/\n$/, ""), err: err.join("").replace(/\n$/, "") };
}
