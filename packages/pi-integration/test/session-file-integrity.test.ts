import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type CliHome,
  createTestSession,
  fauxAssistantMessage,
  type ModelServer,
  prepareCliHome,
  runPi,
  startModelServer,
  type TestSession,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import abortOnPattern from "./fixtures/abort-on-pattern.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

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

describe("a torn last line in the session file (pi CLI)", () => {
  it("is reported and kept; new entries start on their own line and later --continue keeps the history", async () => {
    const server = await startModelServer({
      script: (_request, index) => ({ text: `answer ${index + 1}` }),
    });
    const home: CliHome = prepareCliHome({ server });
    cleanups.push(
      () => server.close(),
      () => home.dispose(),
    );
    const pi = (args: string[]) => runPi(args, { home: home.home, cwd: home.cwd });

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
    expect(third.code).toBe(0);
    expect(third.stdout.trim()).toBe("answer 3");
    expect(third.stderr).toContain(`session file ${file}: line ${lines.length} is torn`);
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

    // The next run sees the whole history, including what was written after the torn line, and warns no more.
    const fourth = await pi(["-p", "--continue", "question 4"]);
    expect(fourth.code).toBe(0);
    expect(fourth.stderr).not.toContain("torn");
    const sent = conversation(server, 3).join("\n");
    for (const text of ["question 1", "answer 1", "question 2", "question 3", "answer 3", "question 4"]) {
      expect(sent).toContain(text);
    }
  });
});

describe("the stream-abort cap (real pi session file)", () => {
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
    const assistants = entries.filter((entry) => entry.type === "message" && entry.message?.role === "assistant");
    expect(assistants).toHaveLength(1);
    expect(assistants[0]!.message).toMatchObject({ stopReason: "error", content: [] });
    expect(assistants[0]!.message!.errorMessage).toMatch(/aborted 4 consecutive responses in this turn \(cap: 3\)/);
    expect(readFileSync(test.sessionFile!, "utf8")).not.toContain("FORBIDDEN_API(token)");
  });
});
