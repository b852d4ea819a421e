#!/usr/bin/env node
// `pnpm changesets:check`: every .changeset/*.md must be a changeset `changeset version` can apply, naming only
// publishable packages of this workspace with a patch|minor|major bump and a summary; then `changeset status`
// must compute a release plan from them. Exits 1 with the file and the reason for each bad one.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { parse } from "yaml";

// --root=<dir> checks another checkout (the tests use it on a temp copy).
const rootArg = process.argv.find((arg) => arg.startsWith("--root="));
const root = rootArg ? rootArg.slice("--root=".length) : new URL("..", import.meta.url).pathname;
const changesetDir = join(root, ".changeset");
const BUMPS = new Set(["patch", "minor", "major"]);

/** Names of the packages a changeset may bump: not private, not in the config's `ignore`. */
function publishablePackages() {
  const config = JSON.parse(readFileSync(join(changesetDir, "config.json"), "utf8"));
  const ignored = new Set(config.ignore ?? []);
  const names = new Set();
  for (const group of ["packages", "extensions"]) {
    for (const dir of readdirSync(join(root, group))) {
      let manifest;
      try {
        manifest = JSON.parse(readFileSync(join(root, group, dir, "package.json"), "utf8"));
      } catch {
        continue;
      }
      if (!manifest.private && !ignored.has(manifest.name)) names.add(manifest.name);
    }
  }
  return names;
}

/** The problems of one changeset file's text (empty when it is valid). */
export function changesetProblems(text, publishable) {
  const match = /^---\r?\n([\s\S]*?)\r?\n?---\r?\n([\s\S]*)$/.exec(text);
  if (!match) return ["line 1 must be '---', followed by the package map and a closing '---'"];
  const problems = [];
  let map;
  try {
    map = match[1].trim() === "" ? {} : parse(match[1]);
  } catch (error) {
    return [`the package map is not valid YAML: ${error.message.split("\n")[0]}`];
  }
  if (map === null || typeof map !== "object" || Array.isArray(map)) {
    return ["the package map must be lines of '\"@scope/name\": patch|minor|major'"];
  }
  const entries = Object.entries(map);
  if (entries.length === 0) problems.push("the package map is empty (an empty changeset bumps nothing)");
  for (const [name, bump] of entries) {
    if (!publishable.has(name)) problems.push(`"${name}" is not a publishable package of this workspace`);
    if (!BUMPS.has(bump)) problems.push(`"${name}": bump "${bump}" is not patch, minor or major`);
  }
  if (match[2].trim() === "") problems.push("the summary (the text after the closing '---') is empty");
  return problems;
}

const isMain = process.argv[1] && new URL(import.meta.url).pathname === process.argv[1];
if (isMain) {
  const publishable = publishablePackages();
  let failed = false;
  const files = readdirSync(changesetDir).filter((name) => name.endsWith(".md") && name !== "README.md");
  for (const name of files.sort()) {
    for (const problem of changesetProblems(readFileSync(join(changesetDir, name), "utf8"), publishable)) {
      console.error(`.changeset/${name}: ${problem}`);
      failed = true;
    }
  }
  if (!failed) {
    const status = spawnSync("pnpm", ["exec", "changeset", "status", "--verbose"], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
    });
    if (status.status !== 0) {
      console.error(status.stdout, status.stderr);
      console.error("changeset status failed: the release plan cannot be computed");
      failed = true;
    } else {
      console.log(stripVTControlCharacters(status.stdout).replaceAll("🦋  ", "").trim());
    }
  }
  if (failed) process.exit(1);
  console.log(`${files.length} changesets valid`);
}
