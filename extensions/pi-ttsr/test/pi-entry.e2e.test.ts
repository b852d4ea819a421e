import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { clearParseCache, parseCacheStats } from "@pi-rails/rulebook";
import { modulesLoadedBy, prepareCliHome, runPi, startModelServer } from "@pi-rails/testkit";
import { describe, expect, it, vi } from "vitest";
import { RuleRegistry } from "../src/manager/registry.ts";
import { loadTtsrRules } from "../src/rules/load.ts";
import { DEFAULT_TTSR_SETTINGS } from "../src/settings/defaults.ts";
import { ruleFile } from "./helpers.ts";

const E2E_TIMEOUT_MS = 180_000;
const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const RULEBOOK_DIR = join(PACKAGE_DIR, "..", "rulebook");
const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as {
  pi: { extensions: string[] };
};

// What pi loads is the bundled entry (scripts/bundle-extension.mjs): one module and its lazy chunks, not the ~60 modules of
// src/ and the workspace packages that made up most of pi-ttsr's start-up cost under pi's module loader.
describe("the pi entry (pi.extensions)", { timeout: E2E_TIMEOUT_MS }, () => {
  it("is the bundle, and loading it reads no other module of pi-rails nor any npm dependency", () => {
    expect(manifest.pi.extensions).toEqual(["./dist/pi/extension.js"]);
    const entry = join(PACKAGE_DIR, manifest.pi.extensions[0]!);
    const { files, defaultExport } = modulesLoadedBy(entry);
    expect(defaultExport).toBe("function");
    expect(files).toContain(entry);
    for (const file of files) expect(dirname(file), file).toBe(join(PACKAGE_DIR, "dist", "pi"));
  });

  it("keys its caches as the unbundled code does: rulebook keeps the bundle's parse store, src reads its compile cache", async () => {
    const server = await startModelServer({ script: () => ({ text: "Nothing to see here.", chunkSize: 8 }) });
    const home = prepareCliHome({
      server,
      files: {
        ".pi/rules/no-eval.md": ruleFile(
          // a lookahead: compiled at the start (a rule that could be deferred would be compiled only when needed)
          { description: "no eval", condition: "\\beval(?=\\s*\\()", scope: "text" },
          "No eval.",
        ),
        ".pi/rules/style.md": ruleFile({ description: "style", globs: "src/**/*.ts" }, "Use the style."),
      },
    });
    try {
      const first = await runPi(["-e", PACKAGE_DIR, "-p", "hello"], { home });
      expect(first.code, first.stderr).toBe(0);
      const storeDir = join(home.agentDir, "cache", "rulebook");
      const [store] = readdirSync(storeDir);
      expect(store).toBeDefined();
      const storePath = join(storeDir, store!);
      const written = { text: readFileSync(storePath, "utf8"), mtimeMs: statSync(storePath).mtimeMs };
      expect(JSON.parse(written.text).entries.length).toBeGreaterThanOrEqual(2);

      // rulebook's own extension (its src/, through pi's loader) accepts the store pi-ttsr's bundle wrote: it does
      // not reject it as another parser's and rewrite it, which the two would then do to each other every session.
      const second = await runPi(["-e", RULEBOOK_DIR, "-p", "hello"], { home });
      expect(second.code, second.stderr).toBe(0);
      expect(readFileSync(storePath, "utf8")).toBe(written.text);
      expect(statSync(storePath).mtimeMs).toBe(written.mtimeMs);

      // The bundle took the shipped rules' parses from the build's dist/builtin-parsed.json: no parse store of them.
      expect(existsSync(join(home.agentDir, "cache", "pi-ttsr", "builtin-rules.json"))).toBe(false);

      // The unbundled code (rulebook's dist/, pi-ttsr's src/) reads both: every parse of the project's rules from the
      // store, and the compiled rule set from the compile cache.
      vi.stubEnv("PI_TTSR_CACHE_DIR", join(home.agentDir, "cache", "pi-ttsr"));
      clearParseCache();
      const loaded = await loadTtsrRules({
        cwd: home.cwd,
        agentDir: home.agentDir,
        home: home.home,
        settings: DEFAULT_TTSR_SETTINGS,
      });
      expect(loaded.rules.map((r) => r.name)).toContain("no-eval");
      // The shipped rules are found from src/ too (their folder is resolved from the module's own location); src/
      // has no builtin-parsed.json, so it reads those four files, and nothing else.
      expect(loaded.rules.filter((r) => r.builtin)).toHaveLength(4);
      expect(parseCacheStats().reads).toBe(4);
      const registry = new RuleRegistry(loaded.rules, { cacheDir: join(home.agentDir, "cache", "pi-ttsr") });
      expect(registry.compileCache).toBe("hit");
    } finally {
      vi.unstubAllEnvs();
      home.dispose();
      await server.close();
    }
  });
});
