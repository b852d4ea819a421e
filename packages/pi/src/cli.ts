/**
 * The `pi` (and `pi-rails`) command: checks that the installed upstream pi is the one the patch was made for,
 * answers `--version` and the self part of `update` itself, then registers the loader hooks that serve the patched
 * files and runs upstream pi's own CLI entry. Everything else is stock pi.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { register } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { planUpdate, versionLine, wantsVersion } from "./argv.ts";
import type { HookData } from "./hooks.ts";
import { locateUpstream, packageVersion } from "./locate.ts";
import { type PatchedFile, type PatchManifest, parseManifest } from "./manifest.ts";
import { isNewer, PACKAGE_NAME, selfUpdateCommand } from "./self-update.ts";
import { checkUpstream, mismatchMessage } from "./verify.ts";

const CODING_AGENT = "@earendil-works/pi-coding-agent";

/** This package's folder (real path: it is where Node looks for its dependencies). */
export const packageDir = realpathSync(join(dirname(fileURLToPath(import.meta.url)), ".."));

function readOrUndefined(path: string): Uint8Array | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** The patch manifest this build shipped (dist/patched/manifest.json). */
export function loadManifest(dir: string = packageDir): PatchManifest {
  const path = join(dir, "dist", "patched", "manifest.json");
  const text = readOrUndefined(path);
  if (!text) throw new Error(`${path} is missing: reinstall @pi-rails/pi`);
  return parseManifest(Buffer.from(text).toString("utf8"), path);
}

/** Where each patched file comes from and goes to, for the loader hooks. */
export function hookData(files: PatchedFile[], dirs: Record<string, string | undefined>, dir: string): HookData {
  const patchedRoot = join(dir, "dist", "patched");
  const data: HookData = { files: [], added: [] };
  for (const file of files) {
    const url = pathToFileURL(join(dirs[file.package] as string, file.path)).href;
    data.files.push([url, join(patchedRoot, file.patched)]);
    if (file.upstreamSha256 === null) data.added.push(url);
  }
  return data;
}

function selfUpdate(force: boolean, ownVersion: string): number {
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

/** Runs the command line; resolves when upstream pi has been started (or the launcher answered itself). */
export async function main(argv: string[]): Promise<void> {
  let manifest: PatchManifest;
  try {
    manifest = loadManifest();
  } catch (error) {
    console.error(`pi-rails: ${(error as Error).message}`);
    process.exitCode = 1;
    return;
  }
  const dirs = locateUpstream(Object.keys(manifest.upstream), packageDir);
  const { mismatches, toSwap } = checkUpstream(
    manifest,
    (pkg, path) => join(dirs[pkg] ?? join(packageDir, "node_modules", pkg), path),
    readOrUndefined,
  );
  if (mismatches.length > 0) {
    const installed = Object.fromEntries(
      Object.keys(manifest.upstream).map((name) => [name, packageVersion(dirs[name])]),
    );
    console.error(mismatchMessage(manifest, mismatches, installed));
    process.exitCode = 1;
    return;
  }
  const ownVersion = packageVersion(packageDir) ?? "0.0.0";
  const upstreamVersion = packageVersion(dirs[CODING_AGENT]) ?? "?";
  if (wantsVersion(argv)) {
    console.log(versionLine(upstreamVersion, ownVersion));
    return;
  }
  const update = planUpdate(argv);
  if (update) {
    const code = selfUpdate(update.force, ownVersion);
    if (code !== 0 || !update.forward) {
      process.exitCode = code;
      return;
    }
    argv = update.forward;
  }
  // Upstream's start-up notice would tell the user to install stock pi: `pi update` is the way here.
  process.env["PI_SKIP_VERSION_CHECK"] ??= "1";
  if (toSwap.length > 0) {
    register(new URL("./hooks.js", import.meta.url), {
      parentURL: import.meta.url,
      data: hookData(toSwap, dirs, packageDir),
    });
  }
  process.argv = [process.argv[0] as string, process.argv[1] as string, ...argv];
  await import(pathToFileURL(join(dirs[CODING_AGENT] as string, "dist", "cli.js")).href);
}
