#!/usr/bin/env node
// Demo stage: steer a running pi from a second terminal. The real pi CLI runs with the steering bridge; the model
// starts `sleep 30` in bash; `pi-steer` (a second process) finds the session, lists the call in flight and cancels
// it; the process is gone at once, the model is told, and pi finishes normally.
// Runnable alone (`node scripts/demo/steering.mjs`, builds first) or as a stage of `pnpm demo`.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkoutTarget, piOptions } from "./target.mjs";

/** Run the stage; returns what happened (for the caller's summary and tests). */
export async function runSteeringStage({ root, bold = (t) => t, dim = (t) => t, target = checkoutTarget(root) }) {
  const { prepareCliHome, runPi, startModelServer } = await import(join(root, "packages/testkit/dist/index.js"));
  const extension = target.args(["steering-bridge"]);
  const piSteer = target.piSteer;
  const server = await startModelServer({
    script: [
      {
        text: "I'll run the slow integration suite.",
        toolCalls: [
          { id: "call_slow_suite", name: "bash", arguments: { command: "echo $$ > suite.pid; exec sleep 30" } },
        ],
      },
      { text: "The host stopped the slow suite, so I won't wait for it. Let me know when you want it run again." },
    ],
  });
  const home = target.prepareHome(prepareCliHome, { server });
  const steer = (args) =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [piSteer, ...args], { cwd: home.cwd, env: { ...home.env, ...target.env } });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c));
      child.stderr.setEncoding("utf8").on("data", (c) => (stderr += c));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  const alive = (pid) => {
    try {
      process.kill(pid, 0);
    } catch {
      return false;
    }
    const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "x";
    return !/\) Z /.test(stat);
  };
  const waitFor = async (check, what, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`demo: timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  try {
    console.log(bold("Steering a running pi from a second terminal (steering-bridge + pi-steer)"));
    console.log(dim(`project ${home.cwd}\nmodel   embedded scripted model at ${server.baseUrl}\n`));
    console.log(`terminal 1 $ pi -p "run the slow integration suite"${target.label(["steering-bridge"])}`);
    const pi = runPi(
      [...extension, "-p", "run the slow integration suite"],
      piOptions(target, { home, timeoutMs: 90_000 }),
    );
    const pidFile = join(home.cwd, "suite.pid");
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", "bash to start");
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    console.log(dim(`  (the model called bash: sleep 30, running as pid ${pid})\n`));

    console.log(`terminal 2 $ pi-steer status`);
    let status = await steer(["status"]);
    await waitFor(async () => {
      status = await steer(["status"]);
      return status.code === 0 && status.stdout.includes("call_slow_suite");
    }, "the call to show in status");
    console.log(`${status.stdout.trimEnd().replace(/^/gm, "  ")}\n`);

    console.log(`terminal 2 $ pi-steer cancel call_slow_suite --reason "user clicked stop"`);
    const started = Date.now();
    const cancel = await steer(["cancel", "call_slow_suite", "--reason", "user clicked stop"]);
    console.log(`  ${cancel.stdout.trim() || cancel.stderr.trim()}`);
    await waitFor(() => !alive(pid), "the sleep to exit", 5000).catch(() => {});
    const goneMs = Date.now() - started;
    const gone = !alive(pid);
    console.log(
      dim(`  sleep (pid ${pid}) ${gone ? `is gone ${goneMs} ms after the cancel request` : "is STILL running"}\n`),
    );

    const run = await pi;
    const toolResult = JSON.stringify(server.requests[1]?.messages ?? []).match(/Tool call call_slow_suite[^"]*/)?.[0];
    console.log(`What the model was told on its next request:\n  ${toolResult ?? "(no cancellation result)"}`);
    console.log(`\npi finished (exit ${run.code}) and printed:\n  ${run.stdout.trim().replace(/\n/g, "\n  ")}\n`);
    return {
      cancelled: cancel.code === 0 && /^cancelled/.test(cancel.stdout.trim()),
      processGone: gone,
      goneMs,
      modelToldCancelled: Boolean(toolResult?.includes("was cancelled by the host")),
      piExitCode: run.code,
    };
  } finally {
    await server.close();
    home.dispose();
  }
}

/** Whether the stage showed what it is for (`pnpm demo` exits non-zero otherwise). */
export const steeringStagePassed = (result) =>
  result.cancelled && result.processGone && result.modelToldCancelled && result.piExitCode === 0;
