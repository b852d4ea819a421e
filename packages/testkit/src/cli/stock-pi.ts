import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
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
  /**
   * Remove the install (tens of thousands of files) without waiting for it (see `removeTreeInBackground`); nothing
   * for a shared install, which the next caller reuses.
   */
  dispose(): void;
}

export interface InstallStockPiOptions {
  /** Default `STOCK_PI_VERSION`. */
  version?: string;
  /** For the npm install; default 280 s. */
  timeoutMs?: number;
  /**
   * Reuse one install of this version in the temp dir (`<tmpdir>/pi-rails-stock-pi-<version>`), made once and
   * reused by every caller that asks for it, in any process: an install is about 16,000 files and half a minute.
   * Only for callers that never change the install (running pi from it is fine; installing next to it is not).
   */
  shared?: boolean;
}

const COMPLETE = ".pi-rails-stock-pi";

/** The shared install of `version`, when it is complete (its marker names the version and the bin is there). */
function sharedInstall(dir: string, version: string): StockPi | undefined {
  const packageDir = join(dir, "node_modules", "@earendil-works", "pi-coding-agent");
  try {
    if (readFileSync(join(dir, COMPLETE), "utf8") !== version) return undefined;
    const installed = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version?: string };
    if (installed.version !== version) return undefined;
    return { cli: piBinOf(packageDir), dir, packageDir, version, dispose: () => {} };
  } catch {
    return undefined;
  }
}

/**
 * Install the published, unpatched pi from the npm registry into a temp project outside the workspace: the pi
 * a user has who never heard of pi-rails. Extensions must load there and degrade clearly.
 */
export function installStockPi(options: InstallStockPiOptions = {}): StockPi {
  const version = options.version ?? STOCK_PI_VERSION;
  const shared = options.shared ? join(tmpdir(), `pi-rails-stock-pi-${version}`) : undefined;
  if (shared) {
    const reused = sharedInstall(shared, version);
    if (reused) return reused;
  }
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
    const cli = piBinOf(packageDir);
    if (!shared) return { cli, dir, packageDir, version, dispose: () => removeTreeInBackground(dir) };
    // Published whole or not at all: the marker is written before the one rename; a caller that lost the race
    // uses the winner's install and drops its own.
    writeFileSync(join(dir, COMPLETE), version);
    const meanwhile = sharedInstall(shared, version);
    if (meanwhile) {
      removeTreeInBackground(dir);
      return meanwhile;
    }
    // A damaged shared install (a temp cleaner took files): moved aside whole, then replaced.
    if (existsSync(shared)) removeTreeInBackground(renameAside(shared));
    try {
      renameSync(dir, shared);
    } catch (error) {
      const winner = sharedInstall(shared, version);
      if (!winner) throw error;
      removeTreeInBackground(dir);
      return winner;
    }
    const installed = sharedInstall(shared, version);
    if (!installed) throw new Error(`installStockPi: the shared install at ${shared} is incomplete`);
    return installed;
  } catch (error) {
    if (existsSync(dir)) removeTreeInBackground(dir);
    throw error;
  }
}

/** Move an incomplete shared install out of the way (another caller may be reading a complete one: never that). */
function renameAside(path: string): string {
  const aside = `${path}.stale-${process.pid}-${Date.now()}`;
  try {
    renameSync(path, aside);
    return aside;
  } catch {
    return aside;
  }
}
