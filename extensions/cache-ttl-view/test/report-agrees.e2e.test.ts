import { execFile } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  type CliHome,
  closeAfterEach,
  type ModelServer,
  prepareCliHome,
  runPi,
  startProviderServer,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { CLOCK_OFFSET_ENV } from "../src/extension.ts";
import { PACKAGE_DIR } from "./cli-scenario.ts";
import { bigFile, conversation, json } from "./helpers.ts";

/**
 * `cache-ttl report` and the live extension answer "does it prune, after how long?" with one decision: for the
 * same model as pi knows it (models.json included), the same settings, the same words.
 */

const BIN = join(PACKAGE_DIR, "bin", "cache-ttl.mjs");
const run = promisify(execFile);

const keep = closeAfterEach(afterEach);
let server: ModelServer | undefined;
let home: CliHome | undefined;

async function readHome(): Promise<CliHome> {
  server = keep(
    await startProviderServer("openai-completions", {
      strict: true,
      script: (_request, index) =>
        index === 0
          ? { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "big.txt" } }] }
          : { text: `answer ${index}` },
    }),
  );
  home = keep(prepareCliHome({ server, files: { "big.txt": bigFile(50) }, settings: { cacheWarming: "off" } }));
  return home;
}

const sessionFile = (h: CliHome) => {
  const root = join(h.agentDir, "sessions");
  const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
  expect(files).toHaveLength(1);
  return join(root, files[0] as string);
};

const report = async (h: CliHome, ...args: string[]) =>
  (await run(process.execPath, [BIN, "report", sessionFile(h), ...args], { env: h.env, cwd: h.cwd })).stdout;

describe("cache-ttl report and the live extension agree (real pi CLI, loopback model)", () => {
  it("a model whose cache TTL is not known: both say pruning is off, for the same reason, and neither prunes", async () => {
    const h = await readHome();
    const first = await runPi(["-e", PACKAGE_DIR, "-p", "read big.txt"], { home: h, timeoutMs: 120_000 });
    expect(first.code, first.stderr).toBe(0);
    const said = /cache-ttl-view: pruning is off: (.*)/.exec(first.stderr)?.[1];
    expect(said).toContain("the prompt-cache TTL of loopback/loopback-model");
    const later = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "what next?"], {
      home: h,
      env: { [CLOCK_OFFSET_ENV]: "600" },
      timeoutMs: 120_000,
    });
    expect(later.code, later.stderr).toBe(0);
    expect(json(conversation(server?.requests.at(-1) as never))).not.toContain("Context was pruned");

    const replay = JSON.parse(await report(h, "--json"));
    expect(replay).toMatchObject({ ttlSeconds: null, ttl: { source: "off", reason: said } });
    expect(replay.requests.map((r: { pruned: number }) => r.pruned)).toEqual([0, 0, 0]);
    for (const r of replay.requests) expect(r.withPruning).toEqual(r.baseline);
    const table = await report(h);
    expect(table).toContain(`pruning is off: ${said} (as in the extension)`);
    expect(table).not.toMatch(/TTL \d+s/);
  }, 240_000);

  it("a model whose models.json entry declares its cache lifetime: the report takes it, as the extension does", async () => {
    const h = await readHome();
    const modelsFile = join(h.agentDir, "models.json");
    const models = JSON.parse(readFileSync(modelsFile, "utf8"));
    models.providers.loopback.models[0].promptCache = { short: 120 };
    writeFileSync(modelsFile, JSON.stringify(models));
    // A session recorded without the extension: the report decides as the extension would.
    const plain = await runPi(["-p", "read big.txt"], { home: h, timeoutMs: 120_000 });
    expect(plain.code, plain.stderr).toBe(0);
    const replay = JSON.parse(await report(h, "--json"));
    expect(replay).toMatchObject({
      mode: "simulated",
      ttlSeconds: 120,
      ttl: { source: "model", reason: "the model's promptCache.short (120s)" },
    });
    expect(await report(h)).toContain("TTL 120s (the model's promptCache.short (120s))");
    // The live extension in that session, ten minutes on: the same TTL.
    const later = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "what next?"], {
      home: h,
      env: { [CLOCK_OFFSET_ENV]: "600" },
      timeoutMs: 120_000,
    });
    expect(later.code, later.stderr).toBe(0);
    expect(json(conversation(server?.requests.at(-1) as never))).toContain(
      "Context was pruned because the prompt cache TTL (120s) was exceeded",
    );
  }, 240_000);
});
