import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type CliHome, type ModelServer, prepareCliHome, runPi, startModelServer } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";

const fixture = join(import.meta.dirname, "fixtures", "abort-on-pattern.ts");
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(): Promise<{ server: ModelServer; home: CliHome }> {
  const server = await startModelServer({
    script: [
      // Long and slow enough that the client's early close is observable on the server.
      {
        text: `Sure. FORBIDDEN_API(token) is the way. ${"More explanation follows here. ".repeat(40)}`,
        chunkSize: 4,
        delayMs: 2,
      },
      { text: "Use SAFE_API(token).", chunkSize: 4 },
    ],
  });
  const home = prepareCliHome({ server });
  cleanups.push(
    () => server.close(),
    () => home.dispose(),
  );
  return { server, home };
}

function sessionFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sessionFiles(path));
    else if (name.endsWith(".jsonl")) found.push(path);
  }
  return found;
}

describe("the real pi CLI with a stream_text extension", () => {
  it("pi -p: aborts the first stream, retries with the injection, prints the retried answer, persists the injection", async () => {
    const { server, home } = await setup();
    const result = await runPi(["-p", "how do I call the API?", "-e", fixture], { home: home.home, cwd: home.cwd });

    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("Use SAFE_API(token).");
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first!.closedEarly).toBe(true);
    expect(first!.deltasSent).toBeLessThan(first!.deltasPlanned);
    const sent = JSON.stringify(second!.messages);
    expect(sent).toContain("RULE fixture-rule: never call FORBIDDEN_API()");
    expect(sent).not.toContain("FORBIDDEN_API(token) is the way");

    const files = sessionFiles(home.agentDir);
    expect(files).toHaveLength(1);
    const entries = readFileSync(files[0]!, "utf8")
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as { type: string; customType?: string; display?: boolean; message?: { role: string } },
      );
    expect(entries.find((entry) => entry.type === "custom_message")).toMatchObject({
      customType: "fixture-rule",
      display: false,
    });
    expect(entries.filter((entry) => entry.message?.role === "assistant")).toHaveLength(1);
    expect(readFileSync(files[0]!, "utf8")).not.toContain("FORBIDDEN_API(token) is the way");
  });

  it("pi --mode json: the event stream shows the abort and one agent run", async () => {
    const { home } = await setup();
    const result = await runPi(["--mode", "json", "-p", "how?", "-e", fixture], { home: home.home, cwd: home.cwd });
    expect(result.code).toBe(0);
    const types = result.events.map((event) => (event as { type: string }).type);
    expect(types.filter((type) => type === "stream_abort")).toHaveLength(1);
    expect(types.filter((type) => type === "agent_start")).toHaveLength(1);
    expect(types.filter((type) => type === "agent_end")).toHaveLength(1);
    const abort = result.events.find((event) => (event as { type: string }).type === "stream_abort") as {
      consecutive: number;
      capReached: boolean;
    };
    expect(abort).toMatchObject({ consecutive: 1, capReached: false });
  });
});
