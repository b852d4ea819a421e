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
