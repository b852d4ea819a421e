import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const repoRoot = join(import.meta.dirname, "..", "..", "..");
const checkScript = join(repoRoot, "scripts", "check-changesets.mjs");
let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A checkout with this repo's changeset config and package manifests, and the given changeset files. */
function checkoutWith(changesets: Record<string, string>): string {
  scratch = mkdtempSync(join(tmpdir(), "pi-rails-changesets-"));
  mkdirSync(join(scratch, ".changeset"));
  cpSync(join(repoRoot, ".changeset", "config.json"), join(scratch, ".changeset", "config.json"));
  for (const dir of ["packages/agent-core", "packages/testkit", "extensions/rulebook", "extensions/pi-ttsr"]) {
    mkdirSync(join(scratch, dir), { recursive: true });
    cpSync(join(repoRoot, dir, "package.json"), join(scratch, dir, "package.json"));
  }
  for (const [name, text] of Object.entries(changesets)) writeFileSync(join(scratch, ".changeset", name), text);
  return scratch;
}

function check(root: string) {
  return spawnSync(process.execPath, [checkScript, `--root=${root}`], { encoding: "utf8" });
}

// CI runs `pnpm changesets:check`; a changeset `changeset version` cannot apply must fail it, naming file and why.
describe("pnpm changesets:check", () => {
  it("fails on the malformed shape that once broke `changeset version` (a heading where the map belongs)", () => {
    const result = check(checkoutWith({ "broken.md": '---\n\n## "@pi-rails/rulebook": minor\n\nText.\n' }));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(".changeset/broken.md: line 1 must be '---'");
  });

  it("names an unknown or private package, a bad bump and an empty summary", () => {
    const result = check(
      checkoutWith({
        "unknown.md": '---\n"@pi-rails/nope": minor\n---\n\nText.\n',
        "private.md": '---\n"@pi-rails/testkit": patch\n---\n\nText.\n',
        "bump.md": '---\n"@pi-rails/rulebook": huge\n---\n\nText.\n',
        "empty.md": '---\n"@pi-rails/pi-ttsr": patch\n---\n\n',
      }),
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('unknown.md: "@pi-rails/nope" is not a publishable package');
    expect(result.stderr).toContain('private.md: "@pi-rails/testkit" is not a publishable package');
    expect(result.stderr).toContain('bump.md: "@pi-rails/rulebook": bump "huge" is not patch, minor or major');
    expect(result.stderr).toContain("empty.md: the summary");
  });

  it("passes this repository's own changesets and prints the release plan", () => {
    const result = spawnSync(process.execPath, [checkScript], { cwd: repoRoot, encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/@pi-rails\/agent-core 0\.1\.0/);
    expect(result.stdout).toMatch(/\d+ changesets valid/);
  });
});

// The README's release flow, step 1, on a copy of this workspace's manifests and changesets.
describe("pnpm version-packages", () => {
  it("versions each package on its own: the first release of every published package is 0.1.0", () => {
    scratch = mkdtempSync(join(tmpdir(), "pi-rails-version-"));
    for (const file of ["package.json", "pnpm-workspace.yaml"]) cpSync(join(repoRoot, file), join(scratch, file));
    cpSync(join(repoRoot, ".changeset"), join(scratch, ".changeset"), { recursive: true });
    const published: string[] = [];
    for (const group of ["packages", "extensions"]) {
      for (const dir of readdirSync(join(repoRoot, group))) {
        const manifest = join(repoRoot, group, dir, "package.json");
        if (!existsSync(manifest)) continue;
        mkdirSync(join(scratch, group, dir), { recursive: true });
        cpSync(manifest, join(scratch, group, dir, "package.json"));
        if (!JSON.parse(readFileSync(manifest, "utf8")).private) published.push(`${group}/${dir}`);
      }
    }
    const git = (...args: string[]) => spawnSync("git", args, { cwd: scratch, encoding: "utf8" });
    git("init", "-q");
    git("add", "-A");
    git("-c", "user.email=ci@pi-rails.local", "-c", "user.name=ci", "commit", "-qm", "copy");
    const result = spawnSync("pnpm", ["version-packages"], {
      cwd: scratch,
      encoding: "utf8",
      env: { ...process.env, PATH: `${join(repoRoot, "node_modules", ".bin")}:${process.env["PATH"]}` },
    });
    expect(result.status, result.stderr).toBe(0);
    expect(published.length).toBeGreaterThanOrEqual(5);
    for (const dir of published) {
      const manifest = JSON.parse(readFileSync(join(scratch, dir, "package.json"), "utf8"));
      expect(`${manifest.name}@${manifest.version}`).toBe(`${manifest.name}@0.1.0`);
      expect(readFileSync(join(scratch, dir, "CHANGELOG.md"), "utf8")).toContain("## 0.1.0");
    }
    const left = readdirSync(join(scratch, ".changeset")).filter(
      (name) => name.endsWith(".md") && name !== "README.md",
    );
    expect(left, "changesets consumed by the version step").toEqual([]);
  }, 120_000);
});
