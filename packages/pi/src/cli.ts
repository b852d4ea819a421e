/**
 * The `pi` (and `pi-rails`) command: checks that this installation is the one that was built (the manifest, the
 * upstream pi it reads its package.json, docs and themes from, and the layout of every bundle file), registers the
 * verifier's module hooks, then runs the patched bundle. pi's own code decides everything else, including which
 * arguments print the version or update pi; at those two points the bundle calls back into the launcher.
 */
import { existsSync, lstatSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { versionLine } from "./argv.ts";
import { refuse, Verifier } from "./hooks.ts";
import { createHost, HOST_KEY } from "./host.ts";
import { findPackageDir, packageVersion } from "./locate.ts";
import { type PatchManifest, parseManifest } from "./manifest.ts";
import { runSelfUpdate } from "./self-update.ts";
import { checkLayout, type FileStat, type Zone } from "./verify.ts";

export { Verifier } from "./hooks.ts";
export { createHost, HOST_KEY } from "./host.ts";

/** This package's folder (real path: Node resolves the bundle's imports from real paths). */
export const packageDir = realpathSync(join(dirname(fileURLToPath(import.meta.url)), ".."));

function lstat(path: string): FileStat | undefined {
  try {
    const stat = lstatSync(path);
    return { isFile: stat.isFile(), isSymbolicLink: stat.isSymbolicLink(), size: stat.size };
  } catch {
    return undefined;
  }
}

/** The manifest this build wrote, or a refusal naming what is wrong. */
export function loadManifest(bundleDir: string): PatchManifest {
  const path = join(bundleDir, "manifest.json");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    refuse([`${path} is missing: the bundle was not built or not installed`]);
  }
  try {
    return parseManifest(text, path);
  } catch (error) {
    refuse([(error as Error).message]);
  }
}

/**
 * Where a build made without the patch may run (until the series is installed): a pi-rails checkout, or wherever
 * PI_RAILS_ALLOW_UNPATCHED=1 says so (the suite's temp installs). `pi --version` says UNPATCHED either way.
 */
const inCheckout = (dir: string) =>
  existsSync(join(dir, "..", "..", "pnpm-workspace.yaml")) && existsSync(join(dir, "..", "..", "patches"));

/** Everything checked before pi runs; the zones the hooks guard. Refuses (exit 1) on any problem. */
export function prepare(dir: string = packageDir): { manifest: PatchManifest; zones: Zone[]; upstreamDir: string } {
  const bundleDir = join(dir, "dist", "bundle");
  const manifest = loadManifest(bundleDir);
  const problems: string[] = [];
  const upstreamDir = findPackageDir(manifest.pi.name, dir);
  const upstreamVersion = packageVersion(upstreamDir);
  if (upstreamVersion !== manifest.pi.version) {
    problems.push(
      upstreamDir
        ? `${manifest.pi.name} in ${upstreamDir} is ${upstreamVersion ?? "unreadable"}, the bundle was built from ${manifest.pi.version}`
        : `${manifest.pi.name}@${manifest.pi.version} is not installed next to @pi-rails/pi`,
    );
  }
  if (manifest.patches.length === 0 && !inCheckout(dir) && process.env["PI_RAILS_ALLOW_UNPATCHED"] !== "1") {
    problems.push(
      "this build was made without the pi-rails patch (patches/*.patch were not installed when it was built)",
    );
  }
  const bundleRoot = realpathSync(bundleDir);
  const zones: Zone[] = [{ name: "the bundle of @pi-rails/pi", root: bundleRoot, files: manifest.bundle.files }];
  for (const [name, pkg] of Object.entries(manifest.upstream)) {
    const root = findPackageDir(name, bundleRoot);
    const version = packageVersion(root);
    if (!root || version !== pkg.version) {
      problems.push(
        root
          ? `${name} in ${root} is ${version ?? "unreadable"}, the bundle was built with ${pkg.version}`
          : `${name}@${pkg.version} is not installed next to @pi-rails/pi`,
      );
      continue;
    }
    zones.push({ name, version, root, files: pkg.files });
  }
  problems.push(...checkLayout(zones[0] as Zone, lstat));
  if (problems.length > 0) refuse(problems);
  return { manifest, zones, upstreamDir: upstreamDir as string };
}

/** Runs the command line: the checks, then pi (which reads `process.argv` itself). */
export function main(): void {
  const { manifest, zones, upstreamDir } = prepare();
  const ownVersion = packageVersion(packageDir) ?? "0.0.0";
  const verifier = new Verifier(zones);
  (globalThis as Record<symbol, unknown>)[HOST_KEY] = createHost({
    upstreamDir,
    versionLine: (upstream) => versionLine(upstream, ownVersion, manifest.patches.length > 0),
    selfUpdate: ({ force }) => runSelfUpdate(packageDir, ownVersion, force),
    verifier,
    workers: manifest.workers,
  });
  verifier.install();
  // As pi's own bin does: require() of the ESM entry loads its whole static graph synchronously.
  createRequire(import.meta.url)(join(zones[0]?.root as string, manifest.bundle.entry));
}
