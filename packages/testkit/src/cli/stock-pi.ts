import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface StockPi {
  /** The published CLI entry, to pass as `runPi(..., { piCli })`. */
  cli: string;
  dir: string;
  /**
   * Remove the install (about 21,000 files) in a detached process: on a loaded CI machine a synchronous removal
   * of that tree inside an `afterAll` outlived the hook's timeout and failed a suite whose tests had all passed.
   */
  dispose(): void;
}

/**
 * Install the published, unpatched pi from the npm registry into a temp project outside the workspace: the pi
 * a user has who never heard of pi-rails. Extensions must load there and degrade clearly.
 */
export function installStockPi(options: { version?: string; timeoutMs?: number } = {}): StockPi {
  const version = options.version ?? "0.73.1";
  const dir = mkdtempSync(join(tmpdir(), "pi-rails-stock-pi-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "stock-pi", private: true }));
  const args = ["install", `@mariozechner/pi-coding-agent@${version}`, "--no-audit", "--no-fund", "--prefer-offline"];
  execFileSync("npm", [...args, "--ignore-scripts", "--loglevel=error"], {
    cwd: dir,
    stdio: "pipe",
    timeout: options.timeoutMs ?? 280_000,
  });
  return {
    cli: join(dir, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js"),
    dir,
    dispose: () => removeInBackground(dir),
  };
}

/** Remove `dir` from a detached child that outlives this process, so no test or hook waits for it. */
function removeInBackground(dir: string): void {
  const script = `require("node:fs").rmSync(${JSON.stringify(dir)}, { recursive: true, force: true })`;
  spawn(process.execPath, ["-e", script], { detached: true, stdio: "ignore" }).unref();
}
