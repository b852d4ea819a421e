import { spawn } from "node:child_process";
import { prepareCliHome, resolvePiCli, startModelServer } from "@pi-rails/testkit";
import { benchText } from "./workload.mjs";

const answer = benchText(64 * 1024);
const server = await startModelServer({ script: () => ({ text: answer, chunkSize: 256 }) });
const home = prepareCliHome({ server, files: {} });
const args = process.argv.slice(2);
for (let i = 0; i < 2; i++) {
  const t = Date.now();
  const child = spawn(
    process.execPath,
    [...(i === 1 ? ["--cpu-prof", "--cpu-prof-dir=/tmp/ttsr-m/prof"] : []), resolvePiCli(), ...args, "-p", "go"],
    { cwd: home.cwd, env: home.env, stdio: ["ignore", "ignore", "pipe"] },
  );
  let err = "";
  child.stderr.on("data", (d) => {
    err += d;
  });
  const code = await new Promise((r) => child.on("close", r));
  console.log(i, Date.now() - t, code, err.slice(0, 300));
}
home.dispose();
await server.close();
