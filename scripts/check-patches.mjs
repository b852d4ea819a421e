#!/usr/bin/env node
// Verify that every patch in patches/ applies cleanly to the pristine upstream tarball of the pinned version.
// Pristine copies come from the npm registry (`npm pack`), never from node_modules (which is already patched).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";

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
process.exit(failures > 0 ? 1 : 0);
