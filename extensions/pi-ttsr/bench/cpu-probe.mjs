// Runs pi's CLI (PI_TTSR_PI_CLI) in this process and, at exit, writes the process's CPU time (user + system, ms)
// to PI_TTSR_CPU_OUT. CPU time is what pi-ttsr's own work adds; on a shared machine it is much less disturbed by
// other processes than wall time.
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const out = process.env.PI_TTSR_CPU_OUT;
const cli = process.env.PI_TTSR_PI_CLI;
if (!out || !cli) throw new Error("cpu-probe: set PI_TTSR_CPU_OUT and PI_TTSR_PI_CLI");
process.on("exit", () => {
  const { user, system } = process.cpuUsage();
  writeFileSync(out, String((user + system) / 1000));
});
await import(pathToFileURL(cli).href);
