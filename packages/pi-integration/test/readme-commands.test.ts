import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const repoRoot = join(import.meta.dirname, "..", "..", "..");

/** Every README of the repository (root, packages, extensions, patches). */
function readmes(): string[] {
  const found = ["README.md", "patches/README.md"];
  for (const group of ["packages", "extensions"]) {
    for (const dir of readdirSync(join(repoRoot, group))) {
      try {
        readFileSync(join(repoRoot, group, dir, "README.md"));
        found.push(`${group}/${dir}/README.md`);
      } catch {}
    }
  }
  return found;
}

/** The commands of a README's shell blocks: one per line, comments and blank lines left out. */
export function shellCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of markdown.matchAll(/```(?:bash|sh|shell|console)\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.split("\n")) {
      const line = raw
        .replace(/^\$ /, "")
        .replace(/\s+#.*$/, "")
        .trim();
      if (line && !line.startsWith("#")) commands.push(line);
    }
  }
  return commands;
}

/**
 * Where each command a README shows is run. A README command with no row here fails this test: add the test that
 * runs it (and its row), or take the command out of the README. `evidence` must appear in the file named by `by`.
 */
const RUN_BY: { command: RegExp; by: string; evidence: string }[] = [
  { command: /^(flock \S+ )?pnpm install$/, by: ".ci/run", evidence: "step pnpm install" },
  { command: /^pnpm test$/, by: ".ci/run", evidence: "step pnpm test" },
  { command: /^pnpm demo$/, by: "packages/pi-integration/test/demo.test.ts", evidence: '["demo"]' },
  {
    command: /^pnpm demo --stock$/,
    by: "packages/pi-integration/test/demo.test.ts",
    evidence: '["-s", "demo", "--stock"]',
  },
  { command: /^pnpm release --dry-run$/, by: ".ci/run", evidence: "step pnpm release --dry-run" },
  // The install path and the release flow: `pnpm demo --installed` runs them against a local registry.
  {
    command: /^pnpm demo --installed$/,
    by: "packages/pi-integration/test/installed-pi.e2e.test.ts",
    evidence: '"--installed"',
  },
  { command: /^pnpm release$/, by: "scripts/demo/installed.mjs", evidence: '["release"]' },
  { command: /^npm i -g @pi-rails\/pi$/, by: "scripts/demo/installed.mjs", evidence: '"i", "-g", "@pi-rails/pi"' },
  { command: /^pi --version$/, by: "scripts/demo/installed.mjs", evidence: '("pi", ["--version"])' },
  {
    command: /^pi install npm:@pi-rails\/[a-z-]+$/,
    by: "scripts/demo/installed.mjs",
    evidence: 'user("pi", ["install", `npm:@pi-rails/',
  },
  // pi 1.6: a bare `pi update` updates pi alone; `--all` is pi (the launcher's self-update), then the packages.
  { command: /^pi update --all$/, by: "scripts/demo/installed.mjs", evidence: '("pi", ["update", "--all"])' },
  // packages/pi/README.md: a prompt on the patched pi with the installed extensions loaded.
  {
    command: /^pi -p "hello"$/,
    by: "packages/pi-integration/test/pi-packages.test.ts",
    evidence: '["-p", "hello", "-e", probe]',
  },
  {
    command: /^npm uninstall -g @earendil-works\/pi-coding-agent && npm i -g @pi-rails\/pi$/,
    by: "scripts/demo/installed.mjs",
    evidence: '["uninstall", "-g", "@earendil-works/pi-coding-agent"]',
  },
  {
    command: /^npm i -g --prefix ~\/\.pi-rails @pi-rails\/pi$/,
    by: "scripts/demo/installed.mjs",
    evidence: '"--prefix", join(stockHome, ".pi-rails")',
  },
  {
    command: /^ln -s ~\/\.pi-rails\/bin\/pi-rails ~\/\.local\/bin\/pi-rails$/,
    by: "scripts/demo/installed.mjs",
    evidence: '("ln", ["-s"',
  },
  {
    command: /^pnpm version-packages$/,
    by: "packages/pi-integration/test/release.test.ts",
    evidence: "version-packages",
  },
  { command: /^pnpm patches:check( && pnpm test)?$/, by: ".ci/run", evidence: "step pnpm patches:check" },
  // patches/README.md, changing the patch: patches:check regenerates the dist patches from the series as
  // patches:build does; patch-series.test.ts puts the series on a branch.
  { command: /^pnpm patches:build$/, by: "scripts/check-patches.mjs", evidence: "buildFromSeries" },
  {
    command: /^pnpm patches:branch \S+( --all)?$/,
    by: "packages/pi-integration/test/patch-series.test.ts",
    evidence: '"scripts/patches/branch.mjs"',
  },
  { command: /^pnpm build && pnpm typecheck && pnpm test$/, by: ".ci/run", evidence: "step pnpm typecheck" },
  {
    command: /^pnpm pi install \.\/extensions\/[a-z-]+$/,
    by: "packages/pi-integration/test/pi-packages.test.ts",
    evidence: '["install", join(repoRoot, "extensions", name)]',
  },
  {
    command: /^pnpm pi -e \.\/extensions\/[a-z-]+$/,
    by: "packages/pi-integration/test/pi-packages.test.ts",
    evidence: '"-e"',
  },
  {
    command: /^npm install @pi-rails\/agent-core @earendil-works\/pi-ai$/,
    by: "packages/agent-core/test/packed-tarball.test.ts",
    evidence: "pi-ai is a peer of agent-core",
  },
  // The CLIs: each package runs the commands of its README's CLI section.
  {
    command: /^(echo .* \| )?pnpm (-s )?ttsr /,
    by: "extensions/pi-ttsr/test/ttsr-bin.e2e.test.ts",
    evidence: "README",
  },
  {
    command: /^pi-steer (sessions|inject|watch)\b/,
    by: "extensions/steering-bridge/test/readme-first-screen.e2e.test.ts",
    evidence: "firstScreenExample",
  },
  { command: /^pnpm (-s )?rulebook /, by: "extensions/rulebook/test/bin.test.ts", evidence: "README" },
  {
    command: /^cache-ttl report /,
    by: "extensions/cache-ttl-view/test/pi-cli.e2e.test.ts",
    evidence: "cache-ttl report",
  },
  ...["remind", "note", "inject", "pending", "revoke"].map((sub) => ({
    command: new RegExp(`^pnpm pi-steer ${sub}\\b`),
    by: "extensions/steering-bridge/test/pi-steer-commands.e2e.test.ts",
    evidence: `"${sub}"`,
  })),
  ...["sessions", "status", "cancel", "watch"].map((sub) => ({
    command: new RegExp(`^pnpm pi-steer ${sub}\\b`),
    by: "extensions/steering-bridge/test/pi-steer.e2e.test.ts",
    evidence: `"${sub}"`,
  })),
];

/** Commands shown but not run by any test, each with the reason. Keep this list short. */
const NOT_RUN: { command: RegExp; why: string }[] = [
  {
    command: /^pnpm changeset$/,
    why: "interactive (changesets' own prompt); what it writes is checked by pnpm changesets:check",
  },
  { command: /^git push --follow-tags$/, why: "pushes to the real remote" },
  {
    command: /^(flock \S+ )?pnpm patch-commit /,
    why: "rewrites patches/ and reinstalls; its result is checked by pnpm patches:check",
  },
  { command: /^git add patches pnpm-lock\.yaml$/, why: "a git step of the patch workflow" },
  {
    command: /^(cd \S+ && git rebase -i \S+|git format-patch .*|cd \/path\/to\/pi-rails)$/,
    why: "the maintainer's own git steps in a pi-mono tree (interactive rebase, export); patches:check checks the result",
  },
  { command: /^pnpm bench$/, why: "minutes of measuring; .ci/run does not run benchmarks" },
];

describe("every command a README shows", () => {
  const all = readmes().flatMap((file) =>
    shellCommands(readFileSync(join(repoRoot, file), "utf8")).map((command) => ({ file, command })),
  );

  it("finds the READMEs' commands", () => {
    expect(all.length).toBeGreaterThan(20);
  });

  it("is run by a test or by .ci/run (or is one of the few listed with the reason it cannot be)", () => {
    const uncovered = all.filter(
      ({ command }) =>
        !RUN_BY.some((row) => row.command.test(command)) && !NOT_RUN.some((row) => row.command.test(command)),
    );
    expect(uncovered.map(({ file, command }) => `${file}: ${command}`)).toEqual([]);
  });

  it("names, for each command, a file that really runs it", () => {
    for (const row of RUN_BY) {
      if (!all.some(({ command }) => row.command.test(command))) continue;
      expect(readFileSync(join(repoRoot, row.by), "utf8"), `${row.by} runs ${row.command}`).toContain(row.evidence);
    }
  });
});
