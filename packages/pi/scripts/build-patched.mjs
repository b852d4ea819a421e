#!/usr/bin/env node
// Build step: the patched upstream files this package serves, derived from the repository's patches/*.patch as
// applied by `pnpm install` to the workspace's node_modules (never hand-copied). For each runtime file a patch
// touches, dist/patched/ gets the patched copy and manifest.json the sha256 of the pristine upstream file, which
// this script recovers by reverse-applying the patch (so a node_modules that is out of step with patches/ fails
// here, loudly). The launcher refuses to start when the installed upstream file is not that pristine file.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { parse } from "yaml";
import { locateUpstream, packageVersion } from "../dist/locate.js";

const packageRoot = new URL("..", import.meta.url).pathname;
const repoRoot = join(packageRoot, "..", "..");
const out = join(packageRoot, "dist", "patched");
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

function fail(message) {
  console.error(`build-patched: ${message}`);
  process.exit(1);
}

const workspace = parse(readFileSync(join(repoRoot, "pnpm-workspace.yaml"), "utf8"));
const patchedDependencies = Object.entries(workspace.patchedDependencies ?? {});
if (patchedDependencies.length === 0) fail("pnpm-workspace.yaml has no patchedDependencies");
const specs = patchedDependencies.map(([spec, patch]) => {
  const at = spec.lastIndexOf("@");
  return { name: spec.slice(0, at), version: spec.slice(at + 1), patch: join(repoRoot, patch) };
});
const dirs = locateUpstream(
  specs.map((spec) => spec.name),
  packageRoot,
);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const manifest = { format: 1, upstream: {}, patches: [], files: [] };
for (const spec of specs) {
  const dir = dirs[spec.name];
  if (!dir) fail(`${spec.name} is not installed next to @pi-rails/pi (run pnpm install)`);
  const installed = packageVersion(dir);
  if (installed !== spec.version) fail(`${spec.name}@${installed} is installed, the patch is for ${spec.version}`);
  const patchText = readFileSync(spec.patch, "utf8");
  // pnpm names the folder of a patched package after the patch's hash: a different one means a stale install.
  const installedHash = /patch_hash=([0-9a-f]+)/.exec(dir)?.[1];
  if (installedHash && !sha256(patchText).startsWith(installedHash)) {
    fail(`${spec.name} in node_modules was patched with another version of ${basename(spec.patch)} (run pnpm install)`);
  }
  manifest.upstream[spec.name] = spec.version;
  manifest.patches.push({ file: basename(spec.patch), sha256: sha256(patchText) });

  // Every file the patch touches, and the ones it adds.
  const touched = [...patchText.matchAll(/^diff --git a\/(\S+) b\/\S+$/gm)].map((match) => match[1]);
  const added = new Set([...patchText.matchAll(/^diff --git a\/(\S+) b\/\S+\nnew file mode/gm)].map((m) => m[1]));
  const scratch = mkdtempSync(join(tmpdir(), "pi-rails-pristine-"));
  try {
    for (const path of touched) {
      if (!existsSync(join(dir, path)))
        fail(`${spec.name}/${path} is missing: node_modules is not patched (pnpm install)`);
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      copyFileSync(join(dir, path), join(scratch, path));
    }
    try {
      // Outside any repository (a scratch folder under a checkout would make git skip every path silently).
      execFileSync("git", ["apply", "-R", spec.patch], {
        cwd: scratch,
        stdio: "pipe",
        env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(scratch), GIT_DIR: join(scratch, ".no-git") },
      });
    } catch (error) {
      fail(
        `${basename(spec.patch)} does not reverse-apply to the installed ${spec.name}: node_modules is out of step ` +
          `with patches/ (run pnpm install)\n${error.stderr?.toString() ?? error.message}`,
      );
    }
    for (const path of touched) {
      const reverted = existsSync(join(scratch, path));
      if (
        added.has(path)
          ? reverted
          : !reverted || sha256(readFileSync(join(scratch, path))) === sha256(readFileSync(join(dir, path)))
      ) {
        fail(`reverse-applying ${basename(spec.patch)} left ${path} as installed: cannot recover the pristine file`);
      }
      if (!path.endsWith(".js")) continue; // types and maps are not loaded at run time
      const target = join(spec.name, path);
      mkdirSync(dirname(join(out, target)), { recursive: true });
      copyFileSync(join(dir, path), join(out, target));
      const upstreamSha256 = added.has(path) ? null : sha256(readFileSync(join(scratch, path)));
      const patchedSha256 = sha256(readFileSync(join(dir, path)));
      manifest.files.push({ package: spec.name, path, upstreamSha256, patched: target, patchedSha256 });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
writeFileSync(join(out, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(
  `build-patched: ${manifest.files.length} patched files from ${manifest.patches.map((p) => p.file).join(", ")}`,
);
