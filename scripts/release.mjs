#!/usr/bin/env node
// `pnpm release [--dry-run]`: build every package, check what each tarball would hold, then publish with
// changesets (only packages whose version is not on the registry yet; one git tag per package, e.g.
// `@pi-rails/rulebook@0.1.0`). Run `pnpm version-packages` first and commit its result (see README "Releasing").
// With --dry-run nothing is published: each package is packed (`pnpm pack`, as `pnpm publish` packs it) and checked,
// so a broken tarball fails here, in CI, before a release. Packing asks no registry anything (`pnpm publish
// --dry-run` refuses a version the registry already has, which is every unchanged package of a later release).
// `changeset publish` publishes to the registry npm's configuration names (npm_config_registry, .npmrc).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const dryRun = process.argv.includes("--dry-run");
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" };

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, env, encoding: "utf8", ...options });
  if (result.status !== 0) {
    console.error(result.stdout ?? "", result.stderr ?? "");
    throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status})`);
  }
  return result.stdout ?? "";
}

/** The workspace packages that are published (not private). */
function publishable() {
  const found = [];
  for (const group of ["packages", "extensions"]) {
    for (const dir of readdirSync(join(root, group))) {
      try {
        const manifest = JSON.parse(readFileSync(join(root, group, dir, "package.json"), "utf8"));
        if (!manifest.private) found.push({ dir: join(group, dir), manifest });
      } catch {}
    }
  }
  return found;
}

/** The files a README links to by relative path (anchors dropped): they must ship, or the link is dead on npm. */
export function readmeLocalLinks(readme) {
  const links = new Set();
  for (const [, target] of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^([a-z]+:|#|\/)/i.test(target)) continue;
    const path = target.split("#")[0].replace(/^\.\//, "");
    if (path && !path.startsWith("../")) links.add(path);
  }
  return [...links];
}

/** What a tarball must hold and must not hold; returns the problems. */
export function tarballProblems(manifest, files, readme = "") {
  const paths = new Set(files);
  const problems = [];
  // The library entry the package exports (pi-ttsr's is its bundle's, dist/pi/index.js).
  const main = manifest.exports?.["."] ?? {};
  const entry = (path, fallback) => (typeof path === "string" ? path : fallback).replace(/^\.\//, "");
  const required = [
    "package.json",
    "README.md",
    "LICENSE",
    entry(main.import, "dist/index.js"),
    entry(main.types, "dist/index.d.ts"),
  ];
  for (const entry of manifest.pi?.extensions ?? []) required.push(entry.replace(/^\.\//, ""));
  for (const target of Object.values(manifest.bin ?? {})) required.push(String(target).replace(/^\.\//, ""));
  for (const path of required) if (!paths.has(path)) problems.push(`missing ${path}`);
  for (const path of readmeLocalLinks(readme)) {
    const shipped = paths.has(path) || [...paths].some((file) => file.startsWith(`${path.replace(/\/$/, "")}/`));
    if (!shipped) problems.push(`README.md links to ${path}, which is not in the tarball`);
  }
  for (const path of paths) {
    if (/(^|\/)(test|tests|__tests__|testing|bench|fixtures)\//.test(path) || /\.(test|spec)\.[cm]?[jt]s$/.test(path)) {
      problems.push(`ships a test or bench file: ${path}`);
    }
  }
  for (const field of ["repository", "homepage", "bugs", "license"]) {
    if (!manifest[field]) problems.push(`package.json has no "${field}"`);
  }
  return problems;
}

const isMain = process.argv[1] && new URL(import.meta.url).pathname === process.argv[1];
if (isMain) {
  try {
    run("pnpm", ["exec", "turbo", "run", "build", "--output-logs=errors-only"], { stdio: "inherit" });
    let failed = false;
    const packed = mkdtempSync(join(tmpdir(), "pi-rails-release-"));
    try {
      for (const { dir, manifest } of publishable()) {
        const out = run("pnpm", ["pack", "--json", "--pack-destination", packed], { cwd: join(root, dir) });
        const report = JSON.parse(out.slice(out.indexOf("{")));
        const files = report.files.map((file) => file.path);
        const problems = tarballProblems(manifest, files, readFileSync(join(root, dir, "README.md"), "utf8"));
        const unpacked = files.reduce((sum, path) => sum + statSync(join(root, dir, path)).size, 0);
        const size = `${(statSync(report.filename).size / 1024).toFixed(0)} kB packed, ${(unpacked / 1024).toFixed(0)} kB unpacked`;
        console.log(
          `${problems.length ? "✗" : "✓"} ${manifest.name}@${manifest.version} (${size}, ${files.length} files)`,
        );
        for (const problem of problems) console.error(`    ${problem}`);
        failed ||= problems.length > 0;
      }
    } finally {
      rmSync(packed, { recursive: true, force: true });
    }
    if (failed) throw new Error("a tarball is not fit to publish");
    if (dryRun) {
      console.log("dry run: nothing published. A release publishes the packages above whose version is new.");
    } else {
      run("pnpm", ["exec", "changeset", "publish"], { stdio: "inherit" });
      console.log("Published. Push the tags: git push --follow-tags");
    }
  } catch (error) {
    console.error(`release${dryRun ? " --dry-run" : ""}: ${error.message}`);
    process.exit(1);
  }
}
