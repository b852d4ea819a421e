import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeTreeInBackground } from "../sandbox/temp-dirs.ts";
import { piBinOf } from "./resolve-pi.ts";

/** The pi release the stock-pi tests install: the one the workspace pins. */
export const STOCK_PI_VERSION = "1.6.0";

export interface StockPi {
  /**
   * The published `pi` command (package.json `bin.pi`: pi 1.6's `dist/bundle/cli.js`), to pass as
   * `runPi(..., { piCli })`. It needs Node >= 22.19: spawn it with a Node 22 (`runPi` uses `process.execPath`).
   */
  cli: string;
  /** The temp project holding `node_modules/@earendil-works/pi-coding-agent`. */
  dir: string;
  /** `<dir>/node_modules/@earendil-works/pi-coding-agent`. */
  packageDir: string;
  version: string;
  /** Remove the install (tens of thousands of files) without waiting for it (see `removeTreeInBackground`). */
  dispose(): void;
}

/**
 * Install the published, unpatched pi from the npm registry into a temp project outside the workspace: the pi
 * a user has who never heard of pi-rails. Extensions must load there and degrade clearly.
 */
export function installStockPi(options: { version?: string; timeoutMs?: number } = {}): StockPi {
  const version = options.version ?? STOCK_PI_VERSION;
  const dir = mkdtempSync(join(tmpdir(), "pi-rails-stock-pi-"));
  try {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "stock-pi", private: true }));
    const args = [
      "install",
      `@earendil-works/pi-coding-agent@${version}`,
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
    ];
    execFileSync("npm", [...args, "--ignore-scripts", "--loglevel=error"], {
      cwd: dir,
      stdio: "pipe",
      timeout: options.timeoutMs ?? 280_000,
    });
    const packageDir = join(dir, "node_modules", "@earendil-works", "pi-coding-agent");
    return { cli: piBinOf(packageDir), dir, packageDir, version, dispose: () => removeTreeInBackground(dir) };
  } catch (error) {
    removeTreeInBackground(dir);
    throw error;
  }
}
