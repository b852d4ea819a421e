import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { findPackageManifest } from "./package-manifest.ts";

/** What Node's own resolution says (real paths on both sides: pnpm links its packages). */
function nodeSays(fromDir: string, name: string): string | undefined {
  try {
    return realpathSync(createRequire(join(fromDir, "x.js")).resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

function weSay(fromDir: string, name: string): string | undefined {
  const found = findPackageManifest(fromDir, name)?.path;
  return found === undefined ? undefined : realpathSync(found);
}

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");

describe("findPackageManifest", () => {
  it("finds what Node finds in this workspace (pnpm's links), from the folders the caches ask from", () => {
    const ttsr = join(REPO, "extensions", "pi-ttsr", "dist", "pi");
    const rulebook = join(REPO, "extensions", "rulebook", "src", "discovery");
    const cases: Array<[string, string]> = [
      ...["refa", "regexp-ast-analysis", "scslre", "@eslint-community/regexpp", "gray-matter"].map(
        (name): [string, string] => [ttsr, name],
      ),
      [ttsr, "@pi-rails/pi-ttsr"],
      [ttsr, "@pi-rails/rulebook"],
      [ttsr, "@pi-rails/agent-core"],
      [rulebook, "@pi-rails/rulebook"],
      [rulebook, "gray-matter"],
      [rulebook, "@pi-rails/agent-core"],
      [ttsr, "no-such-package-here"],
    ];
    const grayMatter = nodeSays(rulebook, "gray-matter");
    if (grayMatter) cases.push([dirname(grayMatter), "js-yaml"]);
    for (const [from, name] of cases) expect(weSay(from, name), `${name} from ${from}`).toBe(nodeSays(from, name));
    // a module URL works as its folder
    const url = new URL("file://" + join(ttsr, "extension.js")).href;
    expect(findPackageManifest(url, "refa")?.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("follows Node's order in an npm layout: itself, the nearest node_modules, a scope ending at node_modules", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "kit-manifest-")));
    const write = (path: string, manifest: object | string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), typeof manifest === "string" ? manifest : JSON.stringify(manifest));
    };
    write("node_modules/a/package.json", { name: "a", version: "1.0.0" });
    // (exports naming its manifest, as ours do: Node refuses a manifest that `exports` leaves out, this finds it)
    const exports = { ".": "./i.js", "./package.json": "./package.json" };
    write("node_modules/app/package.json", { name: "app", version: "3.0.0", exports });
    write("node_modules/app/node_modules/a/package.json", { name: "a", version: "2.0.0" });
    write("node_modules/app/lib/deep/x.js", "");
    write("node_modules/plain/package.json", { name: "plain", version: "4.0.0" });
    write("node_modules/plain/lib/x.js", "");
    write("node_modules/broken/package.json", "{not json");
    write("node_modules/noscope/lib/x.js", "");
    const from = [
      "node_modules/app/lib/deep",
      "node_modules/app",
      "node_modules/plain/lib",
      "node_modules/noscope/lib",
      "",
    ];
    for (const dir of from)
      for (const name of ["a", "app", "plain", "broken", "noscope", "missing"])
        expect(weSay(join(root, dir), name), `${name} from ${dir || "."}`).toBe(nodeSays(join(root, dir), name));
    expect(findPackageManifest(join(root, "node_modules/app/lib/deep"), "a")?.version).toBe("2.0.0");
    expect(findPackageManifest(join(root, "node_modules/plain/lib"), "a")?.version).toBe("1.0.0");
  });
});
