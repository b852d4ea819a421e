import { spawnSync } from "node:child_process";
import { basename, dirname, sep } from "node:path";

export const PACKAGE_NAME = "@pi-rails/pi";

/**
 * The npm prefix of a global npm install of @pi-rails/pi, from where the package is installed
 * (`<prefix>/lib/node_modules/@pi-rails/pi`), or undefined when it is not such an install (a project's
 * node_modules, a checkout, another package manager).
 */
export function globalNpmPrefix(packageDir: string): string | undefined {
  const parts = packageDir.split(sep);
  const [scope, name] = PACKAGE_NAME.split("/") as [string, string];
  if (basename(packageDir) !== name || basename(dirname(packageDir)) !== scope) return undefined;
  const nodeModules = dirname(dirname(packageDir));
  if (basename(nodeModules) !== "node_modules" || basename(dirname(nodeModules)) !== "lib") return undefined;
  return parts.length > 4 ? dirname(dirname(nodeModules)) : undefined;
}

/** The command that updates this install: npm itself, into the prefix it lives in, by this package's name. */
export function selfUpdateCommand(packageDir: string): { command: string; args: string[] } | undefined {
  const prefix = globalNpmPrefix(packageDir);
  if (!prefix) return undefined;
  return { command: "npm", args: ["install", "--global", "--prefix", prefix, `${PACKAGE_NAME}@latest`] };
}

/** True when `latest` is a newer semver than `current` (x.y.z, prerelease tags ignored). */
export function isNewer(latest: string, current: string): boolean {
  const parse = (version: string) =>
    version
      .split("-")[0]!
      .split(".")
      .map((part) => Number.parseInt(part, 10) || 0);
  const a = parse(latest);
  const b = parse(current);
  for (let index = 0; index < 3; index++) {
    if ((a[index] ?? 0) !== (b[index] ?? 0)) return (a[index] ?? 0) > (b[index] ?? 0);
  }
  return false;
}

/**
 * Updates @pi-rails/pi itself (what every `pi update` that includes pi does here): asks the registry for the
 * latest version, then installs it with npm into the prefix this install lives in. Never stock pi's package.
 * Resolves to the exit code.
 */
export async function runSelfUpdate(packageDir: string, ownVersion: string, force: boolean): Promise<number> {
  const command = selfUpdateCommand(packageDir);
  if (!command) {
    console.error(
      `pi-rails: cannot update this installation of ${PACKAGE_NAME} (${packageDir}): it is not a global npm install.\n` +
        `Update it with the tool that installed it; a global npm install updates with: npm install -g ${PACKAGE_NAME}`,
    );
    return 1;
  }
  if (!force) {
    const view = spawnSync("npm", ["view", `${PACKAGE_NAME}@latest`, "version"], { encoding: "utf8" });
    const latest = view.status === 0 ? view.stdout.trim() : "";
    if (latest && !isNewer(latest, ownVersion)) {
      console.log(`pi is already up to date (${PACKAGE_NAME} v${ownVersion})`);
      return 0;
    }
  }
  console.log(`Updating pi with ${command.command} ${command.args.join(" ")}...`);
  const result = spawnSync(command.command, command.args, { stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`pi-rails: the update failed; run it yourself: ${command.command} ${command.args.join(" ")}`);
    return result.status ?? 1;
  }
  console.log(`Updated pi (${PACKAGE_NAME})`);
  return 0;
}
