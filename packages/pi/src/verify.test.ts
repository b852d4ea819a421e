import { join, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { parseManifest } from "./manifest.ts";
import {
  checkFile,
  checkLayout,
  checkResolution,
  type FileStat,
  refusalMessage,
  sha256,
  type Zone,
  zoneOf,
} from "./verify.ts";

const CHUNK = "export const loop = 1; // [pi-rails] patched";
const entry = (text: string) => ({ sha256: sha256(text), size: Buffer.byteLength(text) });
const bundle: Zone = {
  name: "the bundle of @pi-rails/pi",
  root: join(sep, "i", "pi", "dist", "bundle"),
  files: { "cli-runtime.js": entry("import './chunk-a.js';"), "chunk-a.js": entry(CHUNK) },
};
const jiti: Zone = {
  name: "jiti",
  version: "2.7.0",
  root: join(sep, "i", "node_modules", "jiti"),
  files: { "lib/jiti.cjs": entry("module.exports = 1;") },
};
const zones = [bundle, jiti];
const inBundle = (file: string) => join(bundle.root, file);

describe("zoneOf", () => {
  it("places a real path in its zone, by the folder and not a name prefix", () => {
    expect(zoneOf(zones, inBundle("chunk-a.js"))).toEqual({ zone: bundle, file: "chunk-a.js" });
    expect(zoneOf(zones, join(jiti.root, "lib", "jiti.cjs"))?.file).toBe("lib/jiti.cjs");
    expect(zoneOf(zones, `${bundle.root}-old${sep}chunk-a.js`)).toBeUndefined();
    expect(zoneOf(zones, join(sep, "home", "u", "extension.ts"))).toBeUndefined();
  });
});

describe("checkFile", () => {
  it("passes the recorded bytes and anything outside the zones (an extension, another package)", () => {
    expect(checkFile(zones, inBundle("chunk-a.js"), Buffer.from(CHUNK))).toBeUndefined();
    expect(checkFile(zones, inBundle("chunk-a.js"), CHUNK)).toBeUndefined();
    expect(checkFile(zones, join(sep, "home", "u", "x.js"), "anything")).toBeUndefined();
  });

  it("refuses an edited file, an emptied one and one the build did not write", () => {
    expect(checkFile(zones, inBundle("chunk-a.js"), CHUNK.replace("1", "2"))).toMatch(
      /differs from the file the build recorded/,
    );
    expect(checkFile(zones, inBundle("chunk-a.js"), "")).toMatch(/chunk-a\.js is empty$/);
    expect(checkFile(zones, inBundle("chunk-z.js"), CHUNK)).toMatch(
      /is not a file of the bundle of @pi-rails\/pi as built/,
    );
    expect(checkFile(zones, join(jiti.root, "lib", "jiti.cjs"), "module.exports = 2;")).toMatch(/differs/);
    expect(checkFile(zones, join(jiti.root, "dist", "extra.cjs"), "")).toMatch(/not a file of jiti@2\.7\.0/);
  });
});

describe("checkResolution", () => {
  const parent = inBundle("cli-runtime.js");

  it("follows a relative import that stays in its zone, builtins, and imports from outside the zones", () => {
    expect(checkResolution(zones, parent, "./chunk-a.js", inBundle("chunk-a.js"))).toBeUndefined();
    expect(checkResolution(zones, parent, "node:fs", undefined)).toBeUndefined();
    expect(checkResolution(zones, parent, "fs", undefined)).toBeUndefined();
    expect(checkResolution(zones, join(sep, "ext", "a.js"), "./b.js", join(sep, "elsewhere", "b.js"))).toBeUndefined();
  });

  it("refuses a chunk whose real path is elsewhere (a symlink to a copy, even of the same bytes)", () => {
    const problem = checkResolution(zones, parent, "./chunk-a.js", join(sep, "tmp", "copy", "chunk-a.js"));
    expect(problem).toMatch(
      /\.\/chunk-a\.js \(imported by .*cli-runtime\.js\) resolves to .*copy.*chunk-a\.js, outside the bundle/,
    );
    expect(problem).toContain("a symlink?");
  });

  it("refuses a package the manifest names when it resolves outside the folder that was checked", () => {
    expect(checkResolution(zones, parent, "jiti", join(jiti.root, "lib", "jiti.cjs"))).toBeUndefined();
    expect(checkResolution(zones, parent, "jiti", join(sep, "tmp", "jiti", "lib", "jiti.cjs"))).toMatch(
      /jiti .* resolves to .*, not into jiti@2\.7\.0/,
    );
    expect(
      checkResolution(zones, join(jiti.root, "lib", "jiti.cjs"), "../dist/babel.cjs", join(sep, "x", "babel.cjs")),
    ).toMatch(/outside jiti@2\.7\.0/);
  });
});

describe("checkLayout", () => {
  const stats = (table: Record<string, FileStat>) => (path: string) => table[path];
  const file = (size: number): FileStat => ({ isFile: true, isSymbolicLink: false, size });

  it("passes regular files of the recorded sizes", () => {
    const ok = { [inBundle("cli-runtime.js")]: file(22), [inBundle("chunk-a.js")]: file(Buffer.byteLength(CHUNK)) };
    expect(checkLayout(bundle, stats(ok))).toEqual([]);
  });

  it("names a missing, emptied, resized or symlinked file before anything runs", () => {
    const problems = checkLayout(
      bundle,
      stats({
        [inBundle("cli-runtime.js")]: { isFile: false, isSymbolicLink: true, size: 40 },
        [inBundle("chunk-a.js")]: file(0),
      }),
    );
    expect(problems).toEqual([
      `${inBundle("cli-runtime.js")} is a symlink, not the file the build wrote`,
      `${inBundle("chunk-a.js")} is empty`,
    ]);
    expect(checkLayout(bundle, stats({ [inBundle("chunk-a.js")]: file(3) }))).toEqual([
      `${inBundle("cli-runtime.js")} is missing`,
      `${inBundle("chunk-a.js")} has 3 bytes, the build wrote ${Buffer.byteLength(CHUNK)}`,
    ]);
  });

  it("says what is refused and how to get a good install", () => {
    const message = refusalMessage(["x is empty"]);
    expect(message.split("\n")[0]).toMatch(/^pi-rails: refusing to start pi/);
    expect(message).toContain("  x is empty");
    expect(message).toContain("npm install -g @pi-rails/pi");
  });
});

describe("parseManifest", () => {
  const good = {
    format: 2,
    pi: { name: "@earendil-works/pi-coding-agent", version: "1.6.0" },
    node: ">=22.19.0",
    patches: [],
    bundle: { entry: "cli-runtime.js", files: { "cli-runtime.js": entry("x") } },
    workers: {},
    upstream: { jiti: { version: "2.7.0", files: { "lib/jiti.cjs": entry("y") } } },
  };

  it("reads what the build writes", () => {
    expect(parseManifest(JSON.stringify(good), "/m").pi.version).toBe("1.6.0");
  });

  it("names the file and what is wrong", () => {
    expect(() => parseManifest("{", "/x/manifest.json")).toThrow(/\/x\/manifest\.json: not JSON/);
    expect(() => parseManifest('{"format":1}', "/m")).toThrow(/not a pi-rails bundle manifest of format 2/);
    const noHash = { ...good, upstream: { jiti: { version: "2.7.0", files: { "a.js": { size: 1 } } } } };
    expect(() => parseManifest(JSON.stringify(noHash), "/m")).toThrow(/\/m: jiti file a\.js lacks sha256 or size/);
    const noEntry = { ...good, bundle: { entry: "cli.js", files: good.bundle.files } };
    expect(() => parseManifest(JSON.stringify(noEntry), "/m")).toThrow(/the entry cli\.js is not among/);
  });
});
