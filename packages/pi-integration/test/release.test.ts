import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
