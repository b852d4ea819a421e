import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOOP_SEAMS } from "@pi-rails/agent-core/kit";
import { type ModelServer, prepareCliHome, removeTreeInBackground, runPi, startModelServer } from "@pi-rails/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repoRoot = join(import.meta.dirname, "..", "..", "..");
const PUBLISHED = {
  "@pi-rails/agent-core": "packages/agent-core",
  "@pi-rails/rulebook": "extensions/rulebook",
  "@pi-rails/pi-ttsr": "extensions/pi-ttsr",
  "@pi-rails/steering-bridge": "extensions/steering-bridge",
  "@pi-rails/cache-ttl-view": "extensions/cache-ttl-view",
} as const;

let scratch: string;
let server: ModelServer;
beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "pi-rails-packed-"));
  server = await startModelServer({ script: () => ({ text: "packed and running" }) });
});
afterAll(async () => {
  await server.close();
  removeTreeInBackground(scratch);
});

// What npm users get: each package packed as it would be published, installed outside the workspace.
describe("the packed packages", () => {
  it("install together from their tarballs and run in pi as installed packages", async () => {
    const tarballs = join(scratch, "tarballs");
    mkdirSync(tarballs);
    const dependencies: Record<string, string> = {};
    for (const [name, dir] of Object.entries(PUBLISHED)) {
      const before = new Set(readdirSync(tarballs));
      execFileSync("pnpm", ["pack", "--pack-destination", tarballs], { cwd: join(repoRoot, dir), stdio: "pipe" });
      const tarball = readdirSync(tarballs).find((file) => !before.has(file));
      expect(tarball, name).toBeDefined();
      dependencies[name] = `file:${join(tarballs, tarball!)}`;
      const manifest = JSON.parse(
        execFileSync("tar", ["-xzOf", join(tarballs, tarball!), "package/package.json"], { encoding: "utf8" }),
      );
      // pnpm pack turns workspace: ranges into real versions; nothing may point into the workspace.
      expect(JSON.stringify(manifest.dependencies ?? {}), name).not.toContain("workspace:");
      expect(manifest.exports["."].types, name).toBe("./dist/index.d.ts");
    }
    const project = join(scratch, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, dependencies }));
    execFileSync(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts", "--loglevel=error"],
      {
        cwd: project,
        stdio: "pipe",
        timeout: 280_000,
      },
    );

    const installed = (name: string) => join(project, "node_modules", ...name.split("/"));
    for (const name of Object.keys(PUBLISHED)) {
      const pkg = JSON.parse(readFileSync(join(installed(name), "package.json"), "utf8"));
      // The library entry the package exports (pi-ttsr's comes from its bundle, dist/pi/index.js).
      expect(existsSync(join(installed(name), pkg.exports["."].import)), name).toBe(true);
      expect(existsSync(join(installed(name), pkg.exports["."].types)), name).toBe(true);
      expect(existsSync(join(installed(name), "README.md")), name).toBe(true);
      for (const entry of pkg.pi?.extensions ?? []) expect(existsSync(join(installed(name), entry)), name).toBe(true);
    }
    // The library entries import cleanly from the installed copies.
    const probe = join(project, "probe.mjs");
    writeFileSync(
      probe,
      `import { loadRules } from "@pi-rails/rulebook";
import { PatternSet } from "@pi-rails/pi-ttsr";
import { LOOP_SEAMS } from "@pi-rails/agent-core/kit";
console.log(JSON.stringify({ loadRules: typeof loadRules, PatternSet: typeof PatternSet, seams: LOOP_SEAMS.length }));
`,
    );
    const imported = JSON.parse(execFileSync(process.execPath, [probe], { cwd: project, encoding: "utf8" }).trim());
    // The seam catalog of the installed agent-core is the workspace's (pi 1.6: seven seams, no daemon_idle pair).
    expect(imported).toEqual({ loadRules: "function", PatternSet: "function", seams: LOOP_SEAMS.length });
    expect(LOOP_SEAMS).not.toContain("daemon_idle_pre");

    // And pi loads the four extensions from node_modules, as `pi install npm:...` would place them.
    const home = prepareCliHome({ server });
    try {
      const args = ["-p", "hello"];
      for (const name of Object.keys(PUBLISHED).filter((n) => n !== "@pi-rails/agent-core"))
        args.push("-e", installed(name));
      const run = await runPi(args, { home: home.home, cwd: home.cwd });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe("packed and running");
      expect(run.stderr).not.toMatch(/Failed to load|Cannot find/i);
    } finally {
      home.dispose();
    }
  }, 300_000);
});
