import type { ExtensionFactory } from "@mariozechner/pi-coding-agent";
import {
  type ChatMessage,
  createTestSession,
  type ModelServer,
  type ModelServerOptions,
  type RecordedRequest,
  startModelServer,
  type TestSession,
} from "@pi-rails/testkit";
import { afterEach, vi } from "vitest";
import { type CacheTtlViewOptions, createCacheTtlView } from "../src/extension.ts";

/** A file body of about `kb` KB with numbered lines (so a read of it is obviously large). */
export function bigFile(kb: number, word = "payload"): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 1; size < kb * 1024; i++) {
    const line = `line ${i}: ${word} ${"x".repeat(60)}`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

/** The messages of a request without the system prompt. */
export function conversation(request: RecordedRequest): ChatMessage[] {
  return request.messages.filter((m) => m.role !== "system" && m.role !== "developer");
}

/** Every assistant tool call is answered by a tool message with its id, and every tool message answers a call. */
export function toolPairingProblems(messages: readonly ChatMessage[]): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") {
      for (const call of (m.tool_calls ?? []) as { id: string }[]) open.add(call.id);
    } else if (m.role === "tool") {
      if (!m.tool_call_id || !open.delete(m.tool_call_id)) problems.push(`tool result without call: ${m.tool_call_id}`);
    }
  }
  for (const id of open) problems.push(`tool call without result: ${id}`);
  return problems;
}

/** Whether `shorter` is a byte-identical prefix of `longer` (message by message, serialized). */
export function isPrefix(shorter: readonly ChatMessage[], longer: readonly ChatMessage[]): boolean {
  if (shorter.length > longer.length) return false;
  return shorter.every((m, i) => JSON.stringify(m) === JSON.stringify(longer[i]));
}

export const json = (value: unknown) => JSON.stringify(value);

/**
 * `start(...)`: a loopback model server and a persisted pi session with cache-ttl-view on `clock`. Call once per
 * test file: both are closed (and mocks restored) after each test.
 */
export function sessionPerTest() {
  let live: { server?: ModelServer; t?: TestSession } = {};
  afterEach(async () => {
    vi.restoreAllMocks();
    await live.t?.dispose();
    await live.server?.close();
    live = {};
  });
  return async (options: {
    script: ModelServerOptions["script"];
    clock: { now: number };
    files: Record<string, string>;
    projectSettings: Record<string, unknown>;
    onRender?: CacheTtlViewOptions["onRender"];
    /** Other extensions, loaded before cache-ttl-view (their handlers of an event run first). */
    extensions?: ExtensionFactory[];
  }) => {
    live.server = await startModelServer({ script: options.script });
    live.t = await createTestSession({
      model: { kind: "loopback", server: live.server },
      files: options.files,
      projectSettings: options.projectSettings,
      extensions: [
        ...(options.extensions ?? []),
        createCacheTtlView({
          now: () => options.clock.now,
          ...(options.onRender ? { onRender: options.onRender } : {}),
        }),
      ],
      persist: true,
    });
    return { server: live.server, t: live.t };
  };
}
