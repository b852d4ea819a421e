import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type CliHome,
  createTestSession,
  fauxAssistantMessage,
  installStockPi,
  type ModelServer,
  prepareCliHome,
  type RunPiOptions,
  runPi,
  type StockPi,
  startModelServer,
  type TestSession,
} from "@pi-rails/testkit";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import abortOnPattern from "./fixtures/abort-on-pattern.ts";

/**
 * Issue 25 found pi 0.73.1 gluing the next entry onto a torn last line of a session file, and the core patch fixed
 * pi's session writer. pi fixed it upstream (1.x: "resumed sessions corrupting the next appended entry when their
 * JSONL file lacks a trailing newline"; the file is created with the first user message), so the series no longer
 * carries that fix: these tests hold stock pi 1.6, installed from the registry, to it at every crash point. Should
 * pi break it again, they fail, and the fix goes back into the series.
 */
let stock: StockPi;
beforeAll(() => {
  stock = installStockPi({ shared: true });
}, 300_000);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Stock pi 1.6 in the test's home. */
const stockPi = (args: string[], options: RunPiOptions) => runPi(args, { ...options, piCli: stock.cli });

function sessionFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sessionFiles(path));
    else if (name.endsWith(".jsonl")) found.push(path);
  }
  return found;
}

/** Every user and assistant text the request sent, in order. */
function conversation(server: ModelServer, index: number): string[] {
  return server.requests[index]!.messages.filter((m) => m.role === "user" || m.role === "assistant").map((m) =>
    typeof m.content === "string" ? m.content : JSON.stringify(m.content),
  );
}

describe("a torn last line in the session file (stock pi 1.6 CLI)", () => {
  it("is kept; new entries start on their own line and later --continue keeps the history", async () => {
    const server = await startModelServer({
      script: (_request, index) => ({ text: `answer ${index + 1}` }),
    });
    const home: CliHome = prepareCliHome({ server });
    cleanups.push(
      () => server.close(),
      () => home.dispose(),
    );
    const pi = (args: string[]) => stockPi(args, { home: home.home, cwd: home.cwd });

    expect((await pi(["-p", "question 1"])).code).toBe(0);
    expect((await pi(["-p", "--continue", "question 2"])).code).toBe(0);
    const [file] = sessionFiles(home.agentDir);
    expect(file).toBeDefined();

    // A crash mid-write: the last entry (the assistant's "answer 2") is cut in the middle, no newline.
    const lines = readFileSync(file!, "utf8").trimEnd().split("\n");
    const lastLine = lines.at(-1)!;
    expect(lastLine).toContain("answer 2");
    const torn = lastLine.slice(0, Math.floor(lastLine.length / 2));
    writeFileSync(file!, `${[...lines.slice(0, -1), torn].join("\n")}`);

    const third = await pi(["-p", "--continue", "question 3"]);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout.trim()).toBe("answer 3");
    // History before the torn line reached the model.
    expect(conversation(server, 2)).toEqual(
      expect.arrayContaining([
        expect.stringContaining("question 1"),
        expect.stringContaining("answer 1"),
        expect.stringContaining("question 2"),
        expect.stringContaining("question 3"),
      ]),
    );

    // The torn line is kept as it was, on its own line; everything after it parses.
    const after = readFileSync(file!, "utf8").split("\n");
    expect(after[lines.length - 1]).toBe(torn);
    const appended = after.slice(lines.length).filter((line) => line.length > 0);
    expect(appended.length).toBeGreaterThanOrEqual(2);
    for (const line of appended) expect(() => JSON.parse(line)).not.toThrow();
    expect(appended.join("\n")).toContain("question 3");
    expect(appended.join("\n")).toContain("answer 3");

    // The next run sees the whole history, including what was written after the torn line.
    const fourth = await pi(["-p", "--continue", "question 4"]);
    expect(fourth.code, fourth.stderr).toBe(0);
    const sent = conversation(server, 3).join("\n");
    for (const text of ["question 1", "answer 1", "question 2", "question 3", "answer 3", "question 4"]) {
      expect(sent).toContain(text);
    }
  });
});

/** An extension that writes a custom entry at each user message (a real pi.appendEntry; pi 1.6 writes it first). */
const MARK_EXTENSION = `export default function (pi) {
  pi.on("message_end", (event) => {
    if (event.message.role === "user") pi.appendEntry("crash-mark", { at: Date.now() });
  });
}
`;

type Line = { type?: string; id?: string; customType?: string; message?: { role?: string } };
const parse = (line: string): Line | undefined => {
  try {
    return JSON.parse(line) as Line;
  } catch {
    return undefined;
  }
};

// Issue 25: a crash while pi writes the session file, at each entry it writes. pi 1.6 creates the file with the
// first user message (the header, the model and thinking level, the system prompt message, the user message and
// what extensions append), then appends each entry, so a crash can cut any of them.
describe("a crash while the session file is written, at every point (stock pi 1.6 CLI)", () => {
  const crashPoints: { name: string; line: (lines: Line[]) => number; torn: boolean }[] = [
    { name: "header only", line: () => 1, torn: false },
    { name: "the header", line: () => 0, torn: true },
    {
      name: "the system prompt message",
      line: (l) => l.findIndex((e) => e.message?.role === "system"),
      torn: true,
    },
    { name: "the first user message", line: (l) => l.findIndex((e) => e.message?.role === "user"), torn: true },
    { name: "a custom entry", line: (l) => l.findIndex((e) => e.customType === "crash-mark"), torn: true },
    {
      name: "the first (only) assistant message",
      line: (l) => l.findIndex((e) => e.message?.role === "assistant"),
      torn: true,
    },
    { name: "a later message", line: (l) => l.findLastIndex((e) => e.message?.role === "assistant"), torn: true },
  ];

  it.each(crashPoints)("cut in $name: one header, unique ids, every entry kept, nothing glued", async (point) => {
    const server = await startModelServer({ script: (_request, index) => ({ text: `answer ${index + 1}` }) });
    const home: CliHome = prepareCliHome({ server, files: { "mark.ts": MARK_EXTENSION } });
    cleanups.push(
      () => server.close(),
      () => home.dispose(),
    );
    const pi = (args: string[]) => stockPi(["-e", "./mark.ts", ...args], { home: home.home, cwd: home.cwd });
    expect((await pi(["-p", "question 1"])).code).toBe(0);
    if (point.name === "a later message") expect((await pi(["-p", "--continue", "question 2"])).code).toBe(0);
    const [file] = sessionFiles(home.agentDir);
    const lines = readFileSync(file!, "utf8").trimEnd().split("\n");
    const cut = point.line(lines.map((line) => parse(line) ?? {}));
    expect(cut).toBeGreaterThanOrEqual(0);

    // The crash: everything before line `cut` complete, line `cut` cut in the middle (or not written at all).
    const kept = lines.slice(0, cut);
    const torn = point.torn ? lines[cut]!.slice(0, Math.floor(lines[cut]!.length / 2)) : undefined;
    const before = torn === undefined ? `${kept.join("\n")}\n` : [...kept, torn].join("\n");
    writeFileSync(file!, before);

    const next = await pi(["-p", "--continue", "question 9"]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout.trim()).toMatch(/^answer \d+$/);

    const after = readFileSync(file!, "utf8");
    if (cut === 0) {
      // No valid header: --continue cannot resume this file; it starts a new one and leaves this one untouched.
      expect(after).toBe(before);
      return;
    }
    const afterLines = after.split("\n").filter((line) => line.length > 0);
    // Every entry the file held before, unchanged and in place; the torn line kept on its own line.
    expect(afterLines.slice(0, cut)).toEqual(kept);
    if (torn !== undefined) expect(afterLines[cut]).toBe(torn);
    const appended = afterLines.slice(cut + (torn === undefined ? 0 : 1));
    for (const line of appended) expect(parse(line), line).toBeDefined();
    expect(appended.join("\n")).toContain("question 9");
    // One header, unique ids.
    const entries = afterLines.map(parse).filter((entry): entry is Line => entry !== undefined);
    expect(entries.filter((entry) => entry.type === "session")).toHaveLength(1);
    const ids = entries.filter((entry) => entry.type !== "session").map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    // The next run resumes the same history and the file stays whole.
    const again = await pi(["-p", "--continue", "question 10"]);
    expect(again.code, again.stderr).toBe(0);
    const final = readFileSync(file!, "utf8")
      .split("\n")
      .filter((line) => line.length > 0);
    expect(final.slice(0, afterLines.length)).toEqual(afterLines);
    expect(final.map(parse).filter((entry) => entry?.type === "session")).toHaveLength(1);
  });
});

describe("the stream-abort cap (the patched pi, real session file)", () => {
  it("persists the turn's error, not the violating text", async () => {
    const violating = "Sure: FORBIDDEN_API(token) does it, and then some more words.";
    const test: TestSession = await createTestSession({
      model: { kind: "faux", responses: [1, 2, 3, 4].map(() => fauxAssistantMessage(violating)) },
      extensions: [abortOnPattern],
      persist: true,
    });
    cleanups.push(() => test.dispose());
    await test.prompt("how do I do it?");

    const entries = test.readSessionEntries() as {
      type: string;
      message?: { role: string; content: unknown[]; stopReason?: string; errorMessage?: string };
    }[];
    const all = entries.filter((entry) => entry.type === "message" && entry.message?.role === "assistant");
    // The three retried attempts are kept only as usage records (no content); the fourth ends the turn.
    const records = all.filter((entry) => entry.message?.stopReason === "aborted");
    expect(records.map((entry) => entry.message!.content)).toEqual([[], [], []]);
    const assistants = all.filter((entry) => entry.message?.stopReason !== "aborted");
    expect(assistants).toHaveLength(1);
    expect(assistants[0]!.message).toMatchObject({ stopReason: "error", content: [] });
    expect(assistants[0]!.message!.errorMessage).toMatch(/aborted 4 consecutive responses in this turn \(cap: 3\)/);
    expect(readFileSync(test.sessionFile!, "utf8")).not.toContain("FORBIDDEN_API(token)");
  });
});
