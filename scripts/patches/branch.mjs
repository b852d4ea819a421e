#!/usr/bin/env node
// pnpm patches:branch <pi-mono checkout> [--branch <name>] [--all]: put the series on a branch of a pi-mono
// checkout at the release tag the pin names (v<version>), ready for pi's own checks and a pull request.
// Commits marked "(local only" (the pi-rails marker) are left out unless --all is given.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { git, PACKAGES, pinnedVersions, releaseTag, seriesFiles } from "./lib.mjs";

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const all = args.includes("--all");
if (all) args.splice(args.indexOf("--all"), 1);
const branchName = flag("--branch");
const checkout = args[0] && resolve(args[0]);
if (!checkout) {
  console.error("usage: pnpm patches:branch <path to a pi-mono checkout> [--branch <name>] [--all]");
  process.exit(2);
}
const fail = (message) => {
  console.error(`patches:branch: ${message}`);
  process.exit(1);
};
if (!existsSync(resolve(checkout, ".git"))) fail(`${checkout} is not a git checkout`);
for (const pkg of PACKAGES) {
  if (!existsSync(resolve(checkout, pkg.repoDir, "src"))) fail(`${checkout} has no ${pkg.repoDir}/src: not pi-mono?`);
}
const version = pinnedVersions()[PACKAGES[0].name].version;
const tag = releaseTag(version);
try {
  git(checkout, ["rev-parse", "--verify", "--quiet", `refs/tags/${tag}`]);
} catch {
  fail(`${checkout} has no tag ${tag} (git fetch --tags in the checkout first)`);
}
if (git(checkout, ["status", "--porcelain", "--untracked-files=no"]).trim()) {
  fail(`${checkout} has uncommitted changes: commit or stash them first`);
}
const branch = branchName ?? `pi-rails/stream-hook-${version}`;
const series = seriesFiles().filter((file) => all || !/^Subject: .*\(local only/m.test(readFileSync(file, "utf8")));
git(checkout, ["checkout", "-q", "-b", branch, tag]);
try {
  git(checkout, ["am", "-q", "--3way", ...series]);
} catch (error) {
  console.error(`${error.stdout ?? ""}${error.stderr ?? ""}`);
  fail(`git am stopped on branch ${branch}: resolve in ${checkout} and run git am --continue`);
}
console.log(`patches:branch: ${series.length} commits on ${branch} (from ${tag}) in ${checkout}`);
console.log(git(checkout, ["log", "--oneline", `${tag}..${branch}`]).trimEnd());
