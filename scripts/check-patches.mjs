#!/usr/bin/env node
// Verify the core patch: every dist patch in patches/ applies cleanly to the pristine upstream tarball of the
// pinned version, and equals, byte for byte, what patches:build generates from the TypeScript series in
// patches/source/ (so nobody edits compiled output by hand). Pristine copies come from the npm registry
// (`npm pack`), never from node_modules (which is already patched). --apply-only skips the regeneration.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { buildFromSeries, PACKAGES, pinnedVersions } from "./patches/lib.mjs";

const root = new URL("..", import.meta.url).pathname;
const workspace = parse(readFileSync(join(root, "pnpm-workspace.yaml"), "utf8"));
const patched = workspace.patchedDependencies ?? {};
let failures = 0;
for (const [spec, patchPath] of Object.entries(patched)) {
  const scratch = mkdtempSync(join(tmpdir(), "pi-rails-patch-check-"));
  try {
    const tarball = execFileSync("npm", ["pack", spec, "--silent", "--pack-destination", scratch], {
      cwd: scratch,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    })
      .trim()
      .split("\n")
      .at(-1);
    execFileSync("tar", ["-xzf", join(scratch, tarball), "-C", scratch]);
    const packageDir = join(scratch, "package");
    execFileSync("git", ["apply", "--check", "-v", join(root, patchPath)], { cwd: packageDir, stdio: "pipe" });
    const changed = readFileSync(join(root, patchPath), "utf8").match(/^diff --git /gm)?.length ?? 0;
    console.log(`ok    ${spec}: ${patchPath} applies (${changed} files)`);
  } catch (error) {
    failures++;
    const detail = error.stderr?.toString().trim() || error.message;
    console.error(`FAIL  ${spec}: ${patchPath} does not apply\n${detail}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
if (Object.keys(patched).length === 0) {
  console.error("no patchedDependencies in pnpm-workspace.yaml");
  process.exit(1);
}

if (!process.argv.includes("--apply-only")) {
  const pins = pinnedVersions();
  const version = pins[PACKAGES[0].name].version;
  try {
    const result = buildFromSeries(version);
    if (!result.ok) {
      failures++;
      console.error(`FAIL  patches/source: the series does not apply to pi ${version}: ${result.am.stopped}`);
    } else {
      for (const problem of [...result.problems, ...result.newErrors]) {
        failures++;
        console.error(`FAIL  patches/source: ${problem}`);
      }
      for (const pkg of PACKAGES) {
        const patchPath = pins[pkg.name].patchPath;
        const committed = readFileSync(join(root, patchPath), "utf8");
        if (committed === result.patches[pkg.name]) {
          console.log(`ok    ${patchPath} equals the patch generated from patches/source/`);
        } else {
          failures++;
          console.error(
            `FAIL  ${patchPath} differs from the patch generated from patches/source/: ` +
              "edit the series, never the dist patch, and run `pnpm patches:build`",
          );
        }
      }
    }
  } catch (error) {
    failures++;
    console.error(`FAIL  patches/source: ${error.message}`);
  }
}
process.exit(failures > 0 ? 1 : 0);
