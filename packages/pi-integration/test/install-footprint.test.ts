import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installStockPi, removeTreeInBackground, type StockPi } from "@pi-rails/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repoRoot = join(import.meta.dirname, "..", "..", "..");
const PACKAGE_DIRS = {
  "@pi-rails/agent-core": "packages/agent-core",
  "@pi-rails/rulebook": "extensions/rulebook",
  "@pi-rails/pi-ttsr": "extensions/pi-ttsr",
  "@pi-rails/steering-bridge": "extensions/steering-bridge",
  "@pi-rails/cache-ttl-view": "extensions/cache-ttl-view",
} as const;
type PackageName = keyof typeof PACKAGE_DIRS;
const EXTENSIONS = Object.keys(PACKAGE_DIRS).filter((name) => name !== "@pi-rails/agent-core") as PackageName[];
/** The goal of the issue: an extension adds less than this to a user's disk. */
const BUDGET_BYTES = 5 * 1024 * 1024;
/** Per-package budgets over the common one: none (pi-ttsr's 6.5 MB of the first pi 1.6 move is gone). */
const BUDGETS: Partial<Record<PackageName, number>> = {};

let scratch: string;
let stockPi: StockPi;
const tarballs = new Map<PackageName, string>();

/** Bytes of every regular file below `dir` (symlinks not followed). */
function treeBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) total += treeBytes(path);
    else if (stat.isFile()) total += stat.size;
  }
  return total;
}

/** The @pi-rails packages an extension needs from this workspace (its tarball and theirs). */
function workspaceClosure(name: PackageName): PackageName[] {
  const manifest = JSON.parse(readFileSync(join(repoRoot, PACKAGE_DIRS[name], "package.json"), "utf8"));
  const deps = Object.keys(manifest.dependencies ?? {}).filter((dep): dep is PackageName => dep in PACKAGE_DIRS);
  return [...new Set([name, ...deps.flatMap(workspaceClosure)])];
}

function npmInstall(cwd: string, specs: string[]): void {
  execFileSync(
    "npm",
    ["install", ...specs, "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts", "--loglevel=error"],
    { cwd, stdio: "pipe", timeout: 280_000 },
  );
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "pi-rails-footprint-"));
  const packed = join(scratch, "tarballs");
  mkdirSync(packed);
  for (const [name, dir] of Object.entries(PACKAGE_DIRS) as [PackageName, string][]) {
    const before = new Set(readdirSync(packed));
    execFileSync("pnpm", ["pack", "--pack-destination", packed], { cwd: join(repoRoot, dir), stdio: "pipe" });
    const file = readdirSync(packed).find((entry) => !before.has(entry));
    if (!file) throw new Error(`pnpm pack produced no tarball for ${name}`);
    tarballs.set(name, join(packed, file));
  }
  stockPi = installStockPi();
}, 600_000);
afterAll(() => {
  stockPi?.dispose();
  removeTreeInBackground(scratch);
});

// Users run an extension next to pi; what it adds there is its own footprint (the goal: under 5 MB). pi itself
// installs a package with `npm install <spec> --prefix <its own root>`: there too nothing of pi may be pulled in
// (pi's packages are optional peers); that layout also holds the extension's own copy of zod (about 6 MB), printed.
describe("what installing an extension adds to a user's disk", () => {
  it.each(EXTENSIONS)(
    "%s adds under 5 MB next to pi and brings no second pi",
    (name) => {
      const specs = workspaceClosure(name).map((dep) => tarballs.get(dep) as string);

      // 1. As `pi install npm:...` lays it out: a fresh npm root holding only the package.
      const alone = join(scratch, `${name.replace("/", "+")}-alone`);
      mkdirSync(alone);
      npmInstall(alone, specs);
      const aloneBytes = treeBytes(join(alone, "node_modules"));
      expect(
        existsSync(join(alone, "node_modules", "@earendil-works")),
        "pi's packages installed as dependencies",
      ).toBe(false);

      // 2. Into the project that already has pi: the difference is the extension's own footprint. Uninstalled
      // afterwards, so the next extension is measured against pi alone again.
      const piBytes = treeBytes(join(stockPi.dir, "node_modules"));
      npmInstall(stockPi.dir, specs);
      const addedBytes = treeBytes(join(stockPi.dir, "node_modules")) - piBytes;
      const nestedPi = execFileSync(
        "find",
        [join(stockPi.dir, "node_modules", "@pi-rails"), "-path", "*/@earendil-works/*"],
        {
          encoding: "utf8",
        },
      ).trim();
      execFileSync("npm", ["uninstall", ...workspaceClosure(name), "--no-audit", "--no-fund", "--loglevel=error"], {
        cwd: stockPi.dir,
        stdio: "pipe",
        timeout: 280_000,
      });
      expect(nestedPi, "a second copy of a pi package under the extension").toBe("");

      console.log(
        `${name}: ${mb(aloneBytes)} installed alone, ${mb(addedBytes)} added next to pi (budget ${mb(BUDGETS[name] ?? BUDGET_BYTES)})`,
      );
      expect(addedBytes).toBeLessThan(BUDGETS[name] ?? BUDGET_BYTES);
    },
    300_000,
  );
});
