/**
 * The core patch's TypeScript series (patches/source/): `pnpm patches:branch` puts it on a pi-mono-shaped
 * checkout at the release tag (a git tree of the pinned pi's sources, 1.6.0, recovered from the installed packages' source
 * maps and tagged as pi-mono tags releases), `git am` applies every commit, and the series' own tests pass there.
 * That the dist patches equal what the series generates is `pnpm patches:check` (CI).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  applySeries,
  conflictReport,
  git,
  makeSourceTree,
  PACKAGES,
  pinnedVersions,
  runSeriesTests,
  seriesFiles,
  // @ts-expect-error: a plain .mjs script without types
} from "../../../scripts/patches/lib.mjs";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

type Pkg = { name: string; repoDir: string };
const version: string = pinnedVersions()[(PACKAGES as Pkg[])[0]!.name].version;

describe("the patch series (patches/source/)", () => {
  it(`goes on a branch at v${version} with patches:branch, and its tests pass there`, () => {
    scratch = mkdtempSync(join(tmpdir(), "pi-rails-series-"));
    const packageDirs: Record<string, string> = {};
    for (const pkg of PACKAGES as Pkg[]) packageDirs[pkg.name] = realpathSync(join(repoRoot, "node_modules", pkg.name));
    const tree: string = makeSourceTree(join(scratch, "pi-mono"), version, packageDirs);

    const branch = spawnSync("node", ["scripts/patches/branch.mjs", tree], { cwd: repoRoot, encoding: "utf8" });
    expect(branch.status, branch.stderr).toBe(0);
    const subjects = (git(tree, ["log", "--format=%s", `v${version}..HEAD`]) as string).trim().split("\n").reverse();
    const series = (seriesFiles() as string[]).map((file) => readFileSync(file, "utf8"));
    expect(subjects).toHaveLength(series.filter((text) => !/^Subject: .*\(local only/m.test(text)).length);
    expect(subjects[0]).toMatch(/stream hook/);
    expect(git(tree, ["rev-parse", "--abbrev-ref", "HEAD"]).trim()).toBe(`pi-rails/stream-hook-${version}`);
    // The local-only marker stays out of the upstream branch; the hook is in.
    const session = readFileSync(join(tree, "packages/coding-agent/src/core/agent-session.ts"), "utf8");
    expect(session).not.toContain("@pi-rails/pi-patch");
    expect(readFileSync(join(tree, "packages/agent/src/agent-loop.ts"), "utf8")).toContain("onStreamText");

    // The series' own tests (pi's style: vitest next to each package) against the branch's sources.
    expect(runSeriesTests(tree)).toEqual((PACKAGES as Pkg[]).map((pkg) => ({ repoDir: pkg.repoDir, status: 0 })));
  }, 300_000);

  it("names each hunk that needs a hand when an upstream change conflicts (patches:rebase's 3-way merge)", () => {
    scratch = mkdtempSync(join(tmpdir(), "pi-rails-series-"));
    const packageDirs: Record<string, string> = {};
    for (const pkg of PACKAGES as Pkg[]) packageDirs[pkg.name] = realpathSync(join(repoRoot, "node_modules", pkg.name));
    const tree: string = makeSourceTree(join(scratch, "pi-mono"), version, packageDirs);
    // An upstream release that rewrote the line the stream hook's first hunk replaces.
    const loop = join(tree, "packages/agent/src/agent-loop.ts");
    const source = readFileSync(loop, "utf8");
    expect(source).toContain("\t\t\t// Stream assistant response\n");
    writeFileSync(
      loop,
      source.replace("\t\t\t// Stream assistant response\n", "\t\t\t// Stream the response (changed)\n"),
    );
    git(tree, ["commit", "-q", "-am", "an upstream change"]);

    const am = applySeries(tree, true);
    expect(am.ok).toBe(false);
    const report = conflictReport(tree, am);
    expect(report.stopped).toMatch(/^0001 agent: per-delta stream hook/);
    expect(report.unmerged).toEqual(["packages/agent/src/agent-loop.ts"]);
    expect(report.hunks).toHaveLength(1);
    expect(report.hunks[0]).toMatch(/^packages\/agent\/src\/agent-loop\.ts:\d+-\d+$/);
  }, 60_000);
});
