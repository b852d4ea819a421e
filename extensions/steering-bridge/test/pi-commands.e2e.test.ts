import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type CliHome, type ModelServer, prepareCliHome, resolvePiCli, startModelServer } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { PACKAGE_DIR } from "./steer-cli.ts";

let server: ModelServer | undefined;
let home: CliHome | undefined;
let child: ChildProcessWithoutNullStreams | undefined;
afterEach(async () => {
  child?.kill("SIGKILL");
  child = undefined;
  await server?.close();
  home?.dispose();
  server = undefined;
  home = undefined;
});

type Line = Record<string, unknown>;

/** pi --mode rpc with the bridge: commands in on stdin, events and extension UI requests out on stdout. */
function startRpcPi(cliHome: CliHome) {
  const proc = spawn(process.execPath, [resolvePiCli(), "--mode", "rpc", "-e", PACKAGE_DIR], {
    cwd: cliHome.cwd,
    env: cliHome.env,
  });
  child = proc;
  const lines: Line[] = [];
  let buffer = "";
  let stderr = "";
  proc.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  proc.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let at = buffer.indexOf("\n");
    while (at !== -1) {
      const text = buffer.slice(0, at).trim();
      buffer = buffer.slice(at + 1);
      if (text) lines.push(JSON.parse(text) as Line);
      at = buffer.indexOf("\n");
    }
  });
  const waitFor = async (match: (line: Line) => boolean, what: string, from = 0): Promise<Line> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = lines.slice(from).find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return {
    lines,
    send: (command: Line) => proc.stdin.write(`${JSON.stringify(command)}\n`),
    waitFor,
  };
}

const isStatus = (line: Line) =>
  line["type"] === "extension_ui_request" && line["method"] === "setStatus" && line["statusKey"] === "steering";
const isNotify = (text: RegExp) => (line: Line) =>
  line["type"] === "extension_ui_request" && line["method"] === "notify" && text.test(String(line["message"]));

describe("inside pi: /steer, /seams and the footer status (pi --mode rpc)", () => {
  it("queues from /steer, shows the pending count in the footer, lists it in /seams, clears it once delivered", async () => {
    server = await startModelServer({ script: [{ text: "heard you" }] });
    home = prepareCliHome({ server });
    const pi = startRpcPi(home);

    pi.send({ id: "1", type: "prompt", message: "/steer interrupt hold on, use the staging db" });
    await pi.waitFor(isNotify(/^steering: queued st_\w+ \(interrupt_immediate\)/), "the /steer notice");
    expect(await pi.waitFor((l) => isStatus(l) && l["statusText"] !== undefined, "the footer status")).toMatchObject({
      statusText: "steer: 1 pending",
    });

    pi.send({ id: "2", type: "prompt", message: "/seams" });
    await pi.waitFor(isNotify(/1 steering item\(s\) pending: st_/), "the /seams listing");

    pi.send({ id: "3", type: "prompt", message: "/steer interrupt" });
    await pi.waitFor(isNotify(/usage: \/steer/), "the usage error");

    const before = pi.lines.length;
    pi.send({ id: "4", type: "prompt", message: "go" });
    await pi.waitFor((l) => l["type"] === "agent_end", "the run to end", before);
    await pi.waitFor((l) => isStatus(l) && l["statusText"] === undefined, "the footer to clear", before);
    const sent = JSON.stringify(server.requests[0]!.messages);
    expect(sent).toContain("hold on, use the staging db");
  }, 60_000);

  it("/cancel-tool cancels the only running tool call", async () => {
    server = await startModelServer({
      script: [
        { toolCalls: [{ id: "nap", name: "bash", arguments: { command: "echo $$ > nap.pid; exec sleep 30" } }] },
        { text: "nap cancelled" },
      ],
    });
    home = prepareCliHome({ server });
    const pi = startRpcPi(home);
    pi.send({ id: "1", type: "prompt", message: "/cancel-tool" });
    await pi.waitFor(isNotify(/^steering: no tool call is running/), "the nothing-to-cancel error");

    const before = pi.lines.length;
    pi.send({ id: "2", type: "prompt", message: "take a nap" });
    const pidFile = join(home.cwd, "nap.pid");
    const deadline = Date.now() + 30_000;
    while (!(existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "")) {
      if (Date.now() > deadline) throw new Error("bash never started");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    pi.send({ id: "3", type: "prompt", message: "/cancel-tool" });
    await pi.waitFor(isNotify(/^steering: cancelled: nap \(bash\)/), "the cancel notice", before);
    await pi.waitFor((l) => l["type"] === "agent_end", "the run to end", before);
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(() => process.kill(pid, 0)).toThrow();
    const told = JSON.stringify(server.requests[1]!.messages);
    expect(told).toContain("Tool call nap (bash) was cancelled by the host: stopped with /cancel-tool");
    expect(told).not.toContain("cancelled by the host: cancelled by the host");
  }, 60_000);
});
