// What a user of stock pi 1.6 gets beyond the three demo stages, each run on a target (an installed stock pi with
// the extensions from `pi install`, in `pnpm demo --installed`): a TTSR rule on a streamed tool call, and a steering
// item with `interrupt_immediate` that keeps a pending tool batch from running, on every wire format pi-ai speaks.
// Each returns the facts it saw; the caller prints and checks them.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { piOptions } from "./target.mjs";

const testkit = (root) => import(join(root, "packages/testkit/dist/index.js"));

/** Runs `pi-steer` as a second process, in the pi home's project and environment. */
function steer(target, home, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [target.piSteer, ...args], {
      cwd: home.cwd,
      env: { ...home.env, ...target.env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A rule on `write`'s streamed arguments (`: any` in a .ts file): the call must not run, the model must be told
 * the rule, and the answer that follows is the model's corrected one.
 */
export async function runTtsrToolCallCheck({ root, target }) {
  const { prepareCliHome, runPi, startModelServer } = await testkit(root);
  const server = await startModelServer({
    script: (request) =>
      JSON.stringify(request.messages).includes("rule_violation")
        ? { text: "Understood: typed it as unknown instead of any." }
        : {
            toolCalls: [
              { id: "call_write", name: "write", arguments: { path: "src/a.ts", content: "let x: any = 1;\n" } },
            ],
            chunkSize: 4,
          },
  });
  const rule = `---\ndescription: no any\ncondition: ":\\\\s*any\\\\b"\nscope: "tool:write(*.ts)"\n---\nNever use any: use unknown.\n`;
  const home = target.prepareHome(prepareCliHome, { server, files: { ".pi/rules/no-any.md": rule } });
  try {
    const run = await runPi(
      [...target.args(["pi-ttsr"]), "-p", "write src/a.ts"],
      piOptions(target, { home: home.home, cwd: home.cwd, timeoutMs: 90_000 }),
    );
    const sentAfter = JSON.stringify(server.requests.slice(1).map((request) => request.messages));
    return {
      code: run.code,
      requests: server.requests.length,
      toolRan: existsSync(join(home.cwd, "src", "a.ts")),
      ruleSent: sentAfter.includes("Never use any: use unknown."),
      partialSent: sentAfter.includes("let x: any"),
      answered: run.stdout.includes("typed it as unknown"),
    };
  } finally {
    await server.close();
    home.dispose();
  }
}

/**
 * For each wire format: the model's first answer (a bash call) is held until a `pi-steer inject --mode
 * interrupt_immediate` item is in, as a user's would arrive mid-turn. The call must not run, and the next request
 * must pass the format's strict loopback server (every call paired with a result the API accepts).
 */
export async function runInterruptImmediateCheck({ root, target }) {
  const { prepareCliHome, runPi, startProviderServer, WIRE_FORMATS } = await testkit(root);
  const results = {};
  for (const format of WIRE_FORMATS) {
    let release = () => {};
    const held = new Promise((resolve) => {
      release = resolve;
    });
    const ran = join(mkdtempSync(join(tmpdir(), "pi-rails-skip-")), "ran");
    const server = await startProviderServer(format, {
      strict: true,
      script: async (_request, index) => {
        if (index > 0) return { text: "Stopped before touching anything." };
        await held;
        return { toolCalls: [{ id: "touch", name: "bash", arguments: { command: `touch ${ran}` } }] };
      },
    });
    const home = target.prepareHome(prepareCliHome, { server });
    try {
      const pi = runPi(
        [...target.args(["steering-bridge"]), "-p", "touch the file"],
        piOptions(target, { home: home.home, cwd: home.cwd, timeoutMs: 90_000 }),
      );
      await server.waitForRequests(1, 60_000);
      let injected;
      // The endpoint is up once the session started: retry until it answers.
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
        injected = await steer(target, home, ["inject", "STOP-BEFORE-TOOLS", "--mode", "interrupt_immediate"]);
        if (injected.code === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      release();
      const run = await pi;
      const next = JSON.stringify(server.requests[1]?.messages ?? []);
      results[format] = {
        injected: injected?.code === 0,
        code: run.code,
        toolRan: existsSync(ran),
        requests: server.requests.length,
        accepted: server.requests.every((request) => !request.rejected),
        placeholderSent: next.includes("was not dispatched: interrupt_immediate"),
        itemAfterPlaceholder: next.indexOf("STOP-BEFORE-TOOLS") > next.indexOf("was not dispatched"),
      };
    } finally {
      release();
      await server.close();
      home.dispose();
    }
  }
  return results;
}

/** Whether one format's run showed what interrupt_immediate is for. */
export const interruptImmediateHeld = (result) =>
  result.injected &&
  result.code === 0 &&
  !result.toolRan &&
  result.requests === 2 &&
  result.accepted &&
  result.placeholderSent &&
  result.itemAfterPlaceholder;
