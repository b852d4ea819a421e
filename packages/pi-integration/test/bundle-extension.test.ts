import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname, "..", "..", "..", "scripts", "bundle-extension.mjs");
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A package whose `src/extension.ts` is `source`, bundled as the extensions' build does it. */
async function bundle(source: string) {
  const root = mkdtempSync(join(tmpdir(), "pi-rails-bundle-"));
  roots.push(root);
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "extension.ts"), source);
  const result = await run(process.execPath, [SCRIPT], { cwd: root }).then(
    () => ({ code: 0, stderr: "" }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
  return { ...result, root };
}

// pi hands a bundle to Node's own loader, outside the aliases its loader gives TypeScript extensions: what it aliases
// (its packages and TypeBox) would load a second pi, or nothing at all, from the extension's own node_modules.
describe("scripts/bundle-extension.mjs", () => {
  it.each(["@earendil-works/pi-ai", "typebox", "typebox/value", "@sinclair/typebox"])(
    "refuses a run-time import of %s, naming it",
    async (id) => {
      const { code, stderr } = await bundle(`import * as m from "${id}";\nexport default () => m;\n`);
      expect(code).not.toBe(0);
      expect(stderr).toContain(`imports ${id} at run time; a bundled pi extension must not`);
    },
  );

  it("bundles type-only imports of them, and leaves other npm packages outside the bundle", async () => {
    const { code, stderr, root } = await bundle(
      'import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";\nimport type { TSchema } from "typebox";\n' +
        'import { z } from "zod";\nexport default (pi: ExtensionAPI, s?: TSchema) => z.string().parse(String(s ?? pi));\n',
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const out = readFileSync(join(root, "dist", "pi", "extension.js"), "utf8");
    // whitespace is dropped too: `from"zod"`
    expect(out).toMatch(/from\s*"zod"/);
    expect(out).not.toMatch(/@earendil-works|typebox/);
  });
});
