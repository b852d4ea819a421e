#!/usr/bin/env node
// Demo stage: cache-ttl-view in the real pi CLI. pi reads a 50 KB log file; "ten minutes later" (past the 5-minute
// prompt-cache TTL; the demo shifts the extension's clock instead of waiting) `pi -p --continue` asks again: the
// request no longer carries the file, the model is told what was pruned and how to restore it, and the session file
// on disk still holds the original.
// Runnable alone (`node scripts/demo/cache-ttl.mjs`, builds first) or as a stage of `pnpm demo`.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkoutTarget, piOptions } from "./target.mjs";

const CLOCK_OFFSET_ENV = "CACHE_TTL_VIEW_CLOCK_OFFSET_SECONDS";

function logFile(kb) {
  const lines = [];
  let size = 0;
  for (let i = 1; size < kb * 1024; i++) {
    const level = i % 97 === 0 ? "ERROR" : "INFO ";
    const line = `2026-11-23T09:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")} ${level} worker-${i % 7} handled job ${i} in ${(i * 37) % 900} ms`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

const chars = (messages) => JSON.stringify(messages).length;

/** Run the stage; returns what happened (for the caller's summary and tests). */
export async function runCacheTtlStage({ root, bold = (t) => t, dim = (t) => t, target = checkoutTarget(root) }) {
  const { prepareCliHome, runPi, startModelServer } = await import(join(root, "packages/testkit/dist/index.js"));
  const extension = target.args(["cache-ttl-view"]);
  const log = logFile(50);
  const server = await startModelServer({
    script: [
      { toolCalls: [{ id: "call_read_log", name: "read", arguments: { path: "logs/worker.log" } }] },
      { text: "The log shows 4 workers idle and a burst of ERROR lines every 97 jobs." },
      { text: "Yes: the errors repeat every 97 jobs, so it is a periodic job, not load." },
    ],
  });
  const home = target.prepareHome(prepareCliHome, {
    server,
    files: { "logs/worker.log": log },
    projectSettings: { cacheTtl: { ttlSeconds: 300 } },
  });
  try {
    console.log(bold("cache-ttl-view: a smaller view for the model once the prompt cache has expired"));
    console.log(dim(`project ${home.cwd}, settings { "cacheTtl": { "ttlSeconds": 300 } }, embedded scripted model\n`));

    console.log(`$ pi${target.label(["cache-ttl-view"])} -p "Summarise logs/worker.log"`);
    const first = await runPi(
      [...extension, "-p", "Summarise logs/worker.log"],
      piOptions(target, { home, timeoutMs: 90_000 }),
    );
    if (first.code !== 0) throw new Error(`pi exited with ${first.code}: ${first.stderr}`);
    const before = server.requests[1]?.messages ?? [];
    console.log(
      `   the model read the ${(log.length / 1024).toFixed(0)} KB log: its next request (request 2 of the session, carrying the file) is ${chars(before).toLocaleString("en-US")} chars`,
    );

    console.log(`\n$ pi${target.label(["cache-ttl-view"])} -p --continue "Is that a load problem?"`);
    console.log(dim(`   (10 minutes later: ${CLOCK_OFFSET_ENV}=600 moves the extension's clock past the 300 s TTL)`));
    const later = await runPi(
      [...extension, "-p", "--continue", "Is that a load problem?"],
      piOptions(target, { home, env: { [CLOCK_OFFSET_ENV]: "600" }, timeoutMs: 90_000 }),
    );
    if (later.code !== 0) throw new Error(`pi exited with ${later.code}: ${later.stderr}`);
    const after = server.requests[2]?.messages ?? [];
    const textOf = (m) =>
      typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text ?? "").join("");
    const toolView = after.find((m) => m.role === "tool");
    const notice = after.map(textOf).find((t) => t.startsWith("[SYSTEM MESSAGE] Context was pruned"));
    const fileGone = !JSON.stringify(after).includes("handled job 300 ");
    const saved = chars(before) - chars(after);

    console.log(bold("\n1. What was pruned"));
    console.log(`   the read result now: ${toolView ? textOf(toolView) : "(missing)"}`);
    console.log(`   the 50 KB file is in the request: ${fileGone ? "no" : "yes"}`);
    console.log(bold("\n2. What the request weighs now"));
    console.log(
      `   request 3 (the first of the second prompt) is ${chars(after).toLocaleString("en-US")} chars, ${saved.toLocaleString("en-US")} fewer than request 2, on every request from now on (the notice below gives the extension's token estimate)`,
    );
    console.log(bold("\n3. The notice the model saw"));
    console.log(`   ${notice ? `${notice.slice(0, 220)}…` : "(none)"}`);

    const sessions = join(home.agentDir, "sessions");
    const file = readdirSync(sessions, { recursive: true, encoding: "utf8" }).find((f) => f.endsWith(".jsonl"));
    const session = file ? readFileSync(join(sessions, file), "utf8") : "";
    const originalKept = session.includes("handled job 300 ");
    console.log(bold("\n4. The session file on disk"));
    console.log(
      `   still holds the original log: ${originalKept ? "yes" : "no"} (${file ? join(sessions, file) : "no session file"})`,
    );
    console.log(dim('   the model can get it back with context_restore {"ids": [...]} (appended at the end)\n'));
    return {
      fileGone,
      noticeSeen: Boolean(notice),
      savedTokens: Math.round(saved / 4),
      originalKept,
      piExitCode: later.code,
    };
  } finally {
    await server.close();
    home.dispose();
  }
}

/** Whether the stage showed what it is for (`pnpm demo` exits non-zero otherwise). */
export const cacheTtlStagePassed = (result) =>
  result.fileGone && result.noticeSeen && result.originalKept && result.piExitCode === 0;
