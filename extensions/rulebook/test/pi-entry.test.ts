import { readFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { modulesLoadedBy } from "@pi-rails/testkit";
import { describe, expect, it } from "vitest";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const REPO_DIR = join(PACKAGE_DIR, "..", "..");
const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as {
  pi: { extensions: string[] };
};

// pi loads extensions through jiti, module by module; the package's pi entry is one bundled module
// (scripts/bundle-extension.mjs) so a session start does not pay for rulebook's ~35 modules one by one.
describe("the pi entry (pi.extensions)", () => {
  it("is the bundle, and loading it reads no other module of pi-rails", () => {
    expect(manifest.pi.extensions).toEqual(["./dist/pi/extension.js"]);
    const entry = join(PACKAGE_DIR, manifest.pi.extensions[0]!);
    const { files, defaultExport } = modulesLoadedBy(entry);
    expect(defaultExport).toBe("function");
    expect(files).toContain(entry);
    const ours = files.filter((f) => !f.includes(`${sep}node_modules${sep}`) && f.startsWith(REPO_DIR));
    for (const file of ours) expect(dirname(file), file).toBe(join(PACKAGE_DIR, "dist", "pi"));
  });
});
