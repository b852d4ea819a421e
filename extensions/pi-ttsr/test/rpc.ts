import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { type CliHome, resolvePiCli } from "@pi-rails/testkit";

/** One step of an RPC session: a command (awaited to its end), or something to do between two commands. */
export type RpcStep = Record<string, unknown> | (() => void);

/** What an RPC session printed: every stdout record, and the notifications among them, in order. */
export interface RpcRun {
  records: Array<Record<string, unknown>>;
  notices: Array<{ message: string; type: string }>;
  stderr: string;
}

/**
 * The real pi CLI in RPC mode (`pi --mode rpc`, where extensions have a UI: their notifications arrive as
 * `extension_ui_request` records), driven one step at a time as a client would: a prompt waits for
 * `agent_settled`, a slash command and any other command for its response.
 */
export async function rpcSession(home: CliHome, extensions: string[], steps: RpcStep[]): Promise<RpcRun> {
  const args = [resolvePiCli(), ...extensions.flatMap((e) => ["-e", e]), "--mode", "rpc"];
  const child = spawn(process.execPath, args, { cwd: home.cwd, env: home.env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const records: Array<Record<string, unknown>> = [];
  let waiting: { until: (record: Record<string, unknown>) => boolean; done: () => void } | undefined;
  createInterface({ input: child.stdout }).on("line", (line) => {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    records.push(record);
    if (waiting?.until(record)) waiting.done();
  });
  const closed = new Promise((done) => child.once("close", done));
  try {
    for (const [n, step] of steps.entries()) {
      if (typeof step === "function") {
        step();
        continue;
      }
      const id = `c${n}`;
      const isCommand = step["type"] !== "prompt" || String(step["message"]).startsWith("/");
      await new Promise<void>((done) => {
        waiting = {
          until: (r) => (isCommand ? r["id"] === id && r["type"] === "response" : r["type"] === "agent_settled"),
          done,
        };
        child.stdin.write(`${JSON.stringify({ id, ...step })}\n`);
      });
    }
  } finally {
    child.stdin.end();
    await closed;
  }
  const notices = records.flatMap((r) =>
    r["type"] === "extension_ui_request" && r["method"] === "notify"
      ? [{ message: String(r["message"]), type: String(r["notifyType"] ?? "info") }]
      : [],
  );
  return { records, notices, stderr };
}
