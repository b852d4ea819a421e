/**
 * Finds the workspace's own `pi` command, the @pi-rails/pi launcher (`packages/pi/bin/pi.mjs`), so end-to-end tests
 * run exactly what users of this repository run (`pnpm pi`, and `pi` after `npm i -g @pi-rails/pi`), never a global
 * `pi` and never pi-coding-agent's own bin (pi 1.6's `dist/bundle/cli.js` would run stock pi: the bundle inlines the
 * loop the patch changes).
 *
 * It is found by its place in the repository, not through a package dependency: @pi-rails/pi already devDepends on
 * the testkit.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** pi's engines field: pi 1.6 imports `enableCompileCache` and fails at once on older Node. */
export const PI_MIN_NODE = "22.19.0";

/** `packages/pi/bin/pi.mjs`, from this file's place (`packages/testkit/{src,dist}/cli/`). */
const LAUNCHER = fileURLToPath(new URL("../../../pi/bin/pi.mjs", import.meta.url));

/** Absolute path of the workspace's `pi` command (the @pi-rails/pi launcher); throws when it is missing. */
export function resolvePiCli(): string {
  if (!existsSync(LAUNCHER)) {
    throw new Error(
      `resolvePiCli: the workspace's pi launcher is missing at ${LAUNCHER} (run pnpm install and pnpm build)`,
    );
  }
  return LAUNCHER;
}

/**
 * The bin of an installed pi package (`bin.pi` of its package.json): pi 1.6 ships `dist/bundle/cli.js`. Throws when
 * the package names no `pi` bin or the file is missing.
 */
export function piBinOf(packageDir: string): string {
  const manifest = join(packageDir, "package.json");
  const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { bin?: string | Record<string, string> };
  const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.["pi"];
  if (!bin) throw new Error(`${manifest} has no bin.pi`);
  const path = join(packageDir, bin);
  if (!existsSync(path)) throw new Error(`${manifest} names bin.pi ${bin}, which is missing`);
  return path;
}

/** Whether `version` (e.g. process.versions.node) is at least `min`, both `major.minor.patch`. */
export function nodeAtLeast(version: string, min: string = PI_MIN_NODE): boolean {
  const a = version.split(".").map(Number);
  const b = min.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}
