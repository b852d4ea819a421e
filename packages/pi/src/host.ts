/**
 * What the bundle asks of the launcher (the build's GLUE edits call these through
 * `globalThis[Symbol.for("@pi-rails/pi.host")]`): where upstream pi's package folder is, the `--version` line,
 * the self-update, and checked reads of the files pi opens by path rather than by import.
 */
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Verifier } from "./hooks.ts";

export const HOST_KEY = Symbol.for("@pi-rails/pi.host");

export interface PiRailsHost {
  /** The `dist` folder of the upstream pi package (pi walks up from it to its package.json, docs and themes). */
  upstreamDistDir: string;
  /** `pi --version`: upstream's version, then the patch. */
  versionLine(upstreamVersion: string): string;
  /** Every `pi update` that includes pi itself: updates @pi-rails/pi; resolves to the exit code. */
  selfUpdate(options: { force: boolean }): Promise<number>;
  /** Checks a file pi opens by path (codemode's wasm); returns the path. */
  verifiedFile(path: string): string;
  /** Reads a file pi loads from its bytes (the codemode worker), checked. */
  readVerified(path: string | URL): Buffer;
  /** Checks a worker's file and the upstream packages it loads before pi starts the thread; returns the URL. */
  verifiedWorker(url: URL): URL;
}

export function createHost(options: {
  upstreamDir: string;
  versionLine: (upstreamVersion: string) => string;
  selfUpdate: (options: { force: boolean }) => Promise<number>;
  verifier: Verifier;
  workers: Record<string, string[]>;
}): PiRailsHost {
  const { verifier } = options;
  const toPath = (path: string | URL) => (typeof path === "string" ? path : fileURLToPath(path));
  return {
    upstreamDistDir: join(options.upstreamDir, "dist"),
    versionLine: options.versionLine,
    selfUpdate: options.selfUpdate,
    verifiedFile(path) {
      verifier.read(path);
      return path;
    },
    readVerified(path) {
      return verifier.read(toPath(path));
    },
    verifiedWorker(url) {
      const path = toPath(url);
      verifier.read(path);
      for (const pkg of options.workers[basename(path)] ?? []) verifier.checkPackage(pkg);
      return url;
    },
  };
}
