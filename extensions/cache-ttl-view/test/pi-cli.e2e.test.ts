import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type CliHome, type ModelServer, prepareCliHome, runPi, startModelServer } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { CLOCK_OFFSET_ENV } from "../src/extension.ts";
import { bigFile, conversation, isPrefix, json, toolPairingProblems } from "./helpers.ts";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(PACKAGE_DIR, "bin", "cache-ttl.mjs");
const FILE = bigFile(50);

let server: ModelServer | undefined;
let home: CliHome | undefined;
afterEach(async () => {
  await server?.close();
  home?.dispose();
  server = undefined;
  home = undefined;
});

function sessionFiles(agentDir: string): string[] {
  const root = join(agentDir, "sessions");
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => join(root, f));
}

describe("pi -p with cache-ttl-view (real CLI, loopback model)", () => {
  it("prunes a 50 KB read once the TTL has passed; the session file keeps it; the next prefix is byte-identical", async () => {
    server = await startModelServer({
      script: [
        { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "big.txt" } }] },
        { text: "I read big.txt." },
        { text: "Second run." },
        { text: "Third run." },
      ],
    });
    home = prepareCliHome({
      server,
      files: { "big.txt": FILE },
      projectSettings: { cacheTtl: { ttlSeconds: 300 } },
    });
    const first = await runPi(["-e", PACKAGE_DIR, "-p", "read big.txt"], { home });
    expect(first.code, first.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(json(server.requests[1]!.messages).includes("line 300: payload")).toBe(true);

    // The extension's clock seam: this run happens "10 minutes later".
    const later = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "what next?"], {
      home,
      env: { [CLOCK_OFFSET_ENV]: "600" },
    });
    expect(later.code, later.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    const pruned = conversation(server.requests[2]!);
    expect(json(pruned).includes("line 300: payload")).toBe(false);
    expect(json(pruned).includes("[TRUNCATED FILE] id=")).toBe(true);
    expect(json(pruned).includes("Context was pruned because the prompt cache TTL (300s) was exceeded")).toBe(true);
    expect(toolPairingProblems(pruned)).toEqual([]);

    const files = sessionFiles(home.agentDir);
    expect(files).toHaveLength(1);
    const session = readFileSync(files[0]!, "utf8");
    expect(session.includes("line 300: payload")).toBe(true);
    expect(session.includes('"kind":"prune"')).toBe(true);

    // A minute after that: warm; the request repeats the pruned prefix byte for byte.
    const warm = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "and now?"], {
      home,
      env: { [CLOCK_OFFSET_ENV]: "660" },
    });
    expect(warm.code, warm.stderr).toBe(0);
    expect(isPrefix(pruned, conversation(server.requests[3]!))).toBe(true);

    // README: `cache-ttl report <session.jsonl>` and `--json` replay that very file.
    const run = promisify(execFile);
    const text = await run(process.execPath, [BIN, "report", files[0]!], { env: home.env });
    expect(text.stdout).toMatch(/total baseline: [\d,]+ written/);
    // The runs were seconds apart in real time; a 1 ms TTL makes the replay see the second run as cold.
    const { stdout } = await run(process.execPath, [BIN, "report", files[0]!, "--json", "--ttl", "0.001"], {
      env: home.env,
    });
    const report = JSON.parse(stdout);
    expect(report.requests).toHaveLength(4);
    expect(report.requests[2]).toMatchObject({ warm: false, pruned: 1 });
    expect(report.requests[2].withPruning.writeTokens).toBeLessThan(report.requests[2].baseline.writeTokens - 10_000);
  }, 120_000);
});
