/**
 * Finds the workspace's own `pi` CLI (the installed, possibly patched, pi-coding-agent), so
 * end-to-end tests run exactly what users of this repo run, never a global `pi`.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "@earendil-works/pi-coding-agent";

/**
 * Absolute path of `pi`'s bin script (package.json `bin.pi`). The package's `exports` hide its
 * package.json, so resolve the main entry and walk up to the package root.
 */
export function resolvePiCli(): string {
  const entry = fileURLToPath(import.meta.resolve(PACKAGE_NAME));
  let dir = dirname(entry);
  while (dir !== dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as {
        name?: string;
        bin?: string | Record<string, string>;
      };
      if (pkg.name === PACKAGE_NAME) {
        const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.["pi"];
        if (!bin) throw new Error(`${manifest} has no bin.pi`);
        return join(dir, bin);
      }
    }
    dir = dirname(dir);
  }
  throw new Error(`could not find the package root of ${PACKAGE_NAME} above ${entry}`);
}
