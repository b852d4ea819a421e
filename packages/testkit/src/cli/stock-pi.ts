import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeTreeInBackground } from "../sandbox/temp-dirs.ts";

export interface StockPi {
  /** The published CLI entry, to pass as `runPi(..., { piCli })`. */
  cli: string;
  dir: string;
  /** Remove the install (about 21,000 files) without waiting for it (see `removeTreeInBackground`). */
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
  const args = ["install", `@earendil-works/pi-coding-agent@${version}`, "--no-audit", "--no-fund", "--prefer-offline"];
  execFileSync("npm", [...args, "--ignore-scripts", "--loglevel=error"], {
    cwd: dir,
    stdio: "pipe",
    timeout: options.timeoutMs ?? 280_000,
  });
  return {
    cli: join(dir, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli.js"),
    dir,
    dispose: () => removeTreeInBackground(dir),
  };
}
