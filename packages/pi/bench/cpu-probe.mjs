// For bench/startup.mjs only, preloaded (--import) into every timed run, stock pi's and ours alike: writes the
// process's CPU time (user + system, ms) to the file $PI_RAILS_BENCH_CPU when it exits. CPU time is far less
// disturbed than wall time by other work on a shared machine.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  const usage = process.cpuUsage();
  writeFileSync(process.env.PI_RAILS_BENCH_CPU, String((usage.user + usage.system) / 1000));
});
