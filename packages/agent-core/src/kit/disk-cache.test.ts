import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cacheDirFromEnv,
  codeFingerprint,
  filesNewestFirst,
  jsonFaithful,
  knownFingerprints,
  pruneToNewest,
  readJsonCache,
  rememberFingerprints,
  writeFileAtomicSync,
  writeJsonCache,
} from "./disk-cache.ts";
import { recordReads } from "./read-set.ts";

describe("cacheDirFromEnv", () => {
  it("off is no cache, a value is the dir, unset or empty is the fallback", () => {
    expect(cacheDirFromEnv("X_CACHE", "/agent/cache/x", { X_CACHE: "off" })).toBeUndefined();
    expect(cacheDirFromEnv("X_CACHE", "/agent/cache/x", { X_CACHE: "/tmp/c" })).toBe("/tmp/c");
    expect(cacheDirFromEnv("X_CACHE", "/agent/cache/x", { X_CACHE: "" })).toBe("/agent/cache/x");
    expect(cacheDirFromEnv("X_CACHE", "/agent/cache/x", {})).toBe("/agent/cache/x");
  });
});

describe("codeFingerprint", () => {
  it("changes with the package's source bytes and version, and is the same from any module of a consumer", () => {
    const root = mkdtempSync(join(tmpdir(), "kit-fp-"));
    const pkg = join(root, "node_modules", "@x", "p");
    mkdirSync(join(pkg, "src"), { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@x/p", version: "1.0.0" }));
    writeFileSync(join(pkg, "src", "a.ts"), "one");
    const from = (where: string) => pathToFileURL(join(root, where)).href;
    // Each call names a different module of the consumer (no memoised answer): the same code hashes the same.
    const fingerprint = (at: string, sources = ["src/a.ts"]) =>
      codeFingerprint({ packageName: "@x/p", from: from(at), sources, salt: "1" });
    const first = fingerprint("index.js");
    expect(fingerprint(join("deep", "er", "m.js"))).toBe(first);
    writeFileSync(join(pkg, "src", "a.ts"), "two");
    const edited = fingerprint("b.js");
    expect(edited).not.toBe(first);
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@x/p", version: "1.0.1" }));
    expect(fingerprint("c.js")).not.toBe(edited);
    expect(fingerprint("d.js", ["src/a.ts", "src/missing.ts"])).not.toBe(fingerprint("d.js"));
  });
});

describe("codeFingerprint of a dependency's own dependency (`a>b`)", () => {
  it("hashes the b that a resolves from its real folder, not the consumer's, and reads both manifests", async () => {
    const root = mkdtempSync(join(tmpdir(), "kit-fp-nested-"));
    const store = join(root, "store", "a@1", "node_modules");
    const manifest = (dir: string, name: string, version: string) => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version }));
    };
    manifest(join(store, "a"), "a", "1.0.0");
    manifest(join(store, "b"), "b", "2.0.0");
    manifest(join(root, "app", "node_modules", "b"), "b", "9.0.0");
    symlinkSync(join(store, "a"), join(root, "app", "node_modules", "a"));
    // a new module each call: no answer memoised by options
    let n = 0;
    const fingerprint = () =>
      codeFingerprint({
        packageName: "a",
        from: pathToFileURL(join(root, "app", `m${n++}.js`)).href,
        sources: [],
        dependencies: ["a>b"],
      });
    const { value: first, paths } = await recordReads(async () => fingerprint());
    expect(paths.sort()).toEqual(
      [join(root, "app", "node_modules", "a", "package.json"), join(store, "b", "package.json")].sort(),
    );
    // the consumer's own b is not the one a imports
    manifest(join(root, "app", "node_modules", "b"), "b", "9.0.1");
    expect(fingerprint()).toBe(first);
    manifest(join(store, "b"), "b", "2.0.1");
    expect(fingerprint()).not.toBe(first);
  });
});

describe("knownFingerprints / rememberFingerprints", () => {
  it("lists what was computed with the files read, and answers a remembered one without reading anything", async () => {
    const root = mkdtempSync(join(tmpdir(), "kit-fp-known-"));
    const pkg = join(root, "node_modules", "@x", "q");
    mkdirSync(join(pkg, "src"), { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@x/q", version: "1.0.0" }));
    writeFileSync(join(pkg, "src", "a.ts"), "one");
    const options = { packageName: "@x/q", from: pathToFileURL(join(root, "m.js")).href, sources: ["src/a.ts"] };
    const digest = codeFingerprint(options);
    const known = knownFingerprints().find((f) => f.digest === digest);
    expect(known?.reads.sort()).toEqual([join(pkg, "package.json"), join(pkg, "src", "a.ts")].sort());
    // another process's answer, remembered: given back as it is, not computed
    const elsewhere = { ...options, from: pathToFileURL(join(root, "nowhere", "m.js")).href, salt: "other" };
    const key = JSON.stringify(elsewhere);
    rememberFingerprints([{ key, digest: "remembered", reads: [join(pkg, "package.json")] }]);
    expect(codeFingerprint(elsewhere)).toBe("remembered");
    // one computed here is kept, and entries of the wrong shape are ignored
    rememberFingerprints([{ key: known!.key, digest: "stale", reads: [] }, { key: 1, digest: 2 } as never]);
    expect(codeFingerprint(options)).toBe(digest);
    const { paths } = await recordReads(async () => codeFingerprint(elsewhere));
    expect(paths).toEqual([join(pkg, "package.json")]);
  });
});

describe("jsonFaithful", () => {
  /** The reference: JSON gives the value back (an object property that is undefined counts as absent). */
  const roundTrips = (value: unknown): boolean => {
    try {
      const text = JSON.stringify(value);
      return text !== undefined && same(value, JSON.parse(text));
    } catch {
      // a BigInt
      return false;
    }
  };
  const same = (a: unknown, b: unknown): boolean => {
    if (typeof a !== "object" || a === null) return a === b;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (!(i in a) || !same(a[i], b[i])) return false;
      return true;
    }
    const proto = Object.getPrototypeOf(a);
    if ((proto !== Object.prototype && proto !== null) || typeof b !== "object" || b === null) return false;
    const kept = Object.entries(a).filter(([, v]) => v !== undefined);
    return kept.length === Object.keys(b).length && kept.every(([k, v]) => same(v, (b as Record<string, unknown>)[k]));
  };
  /**
   * Nested values of every kind JSON does and does not carry: fast-check's `anything` with every container it has
   * (sparse arrays, null-prototype objects, boxed values, Map, Set, Date, typed arrays, BigInt) or with plain ones
   * only, its leaves mostly what JSON carries (so that a value is often faithful but for one thing deep inside),
   * then every double, lone surrogates, undefined, functions, symbols and regexes.
   */
  const leaves = fc.oneof(
    { weight: 30, arbitrary: fc.oneof(fc.boolean(), fc.integer(), fc.double(), fc.string(), fc.constant(null)) },
    { weight: 2, arbitrary: fc.string({ unit: "binary" }) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, -0, Number.NaN, Number.POSITIVE_INFINITY, 10n) },
    { weight: 1, arbitrary: fc.constantFrom(() => 1, Symbol("s"), /r/, new Date(0)) },
  );
  const values = fc.oneof(
    fc.anything({ maxDepth: 4, withNullPrototype: true, withSparseArray: true, values: [leaves] }),
    fc.anything({
      maxDepth: 4,
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withSparseArray: true,
      withTypedArray: true,
      values: [leaves],
    }),
  );
  it("is true exactly when writing the value to JSON and reading it back gives it back", () => {
    let faithful = 0;
    fc.assert(
      fc.property(values, (value) => {
        const expected = roundTrips(value);
        if (expected) faithful++;
        expect(jsonFaithful(value)).toBe(expected);
      }),
      { numRuns: 20_000 },
    );
    // both answers are common: the property is not carried by one of them
    expect(faithful).toBeGreaterThan(2_000);
    expect(faithful).toBeLessThan(18_000);
  });
});

describe("writeFileAtomicSync", () => {
  it("creates the dir, replaces the file whole, leaves no temp file, owner-only", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "kit-atomic-")), "a", "b");
    const file = join(dir, "c.json");
    writeFileAtomicSync(file, "old");
    writeFileAtomicSync(file, "new");
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(readdirSync(dir)).toEqual(["c.json"]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("throws when the file cannot be written, and leaves no temp file behind", () => {
    const dir = mkdtempSync(join(tmpdir(), "kit-atomic-"));
    mkdirSync(join(dir, "taken"));
    expect(() => writeFileAtomicSync(join(dir, "taken"), "x")).toThrow();
    expect(readdirSync(dir)).toEqual(["taken"]);
  });
});

describe("readJsonCache / writeJsonCache", () => {
  it("reads back what was written when it fits, and nothing (never a throw) for a missing, broken or unfit file", () => {
    const dir = mkdtempSync(join(tmpdir(), "kit-json-cache-"));
    const file = join(dir, "deep", "entry.json");
    const format1 = (data: unknown) =>
      (data as { format?: unknown }).format === 1 ? (data as { v: string }).v : undefined;
    expect(readJsonCache(file, format1)).toBeUndefined();
    expect(writeJsonCache(file, { format: 1, v: "kept" })).toBe(true);
    expect(readJsonCache(file, format1)).toBe("kept");
    writeJsonCache(file, { format: 2, v: "newer" });
    expect(readJsonCache(file, format1)).toBeUndefined();
    writeFileSync(file, '{"format": 1, "v": "torn');
    expect(readJsonCache(file, format1)).toBeUndefined();
    writeFileSync(file, "null");
    expect(readJsonCache(file, format1)).toBeUndefined();
    expect(
      readJsonCache(file, () => {
        throw new Error("bad entry");
      }),
    ).toBeUndefined();
  });

  it("says false when the file cannot be written", () => {
    const dir = mkdtempSync(join(tmpdir(), "kit-json-cache-"));
    mkdirSync(join(dir, "taken"));
    expect(writeJsonCache(join(dir, "taken"), { format: 1 })).toBe(false);
    expect(readdirSync(dir)).toEqual(["taken"]);
  });
});

describe("filesNewestFirst / pruneToNewest", () => {
  it("keeps the newest files a cache takes, by modification time, and leaves other files alone", () => {
    const dir = mkdtempSync(join(tmpdir(), "kit-prune-"));
    const names = ["a.json", "b.json", "c.json", "d.json", "notes.txt"];
    names.forEach((name, i) => {
      writeFileSync(join(dir, name), name);
      // c newest, then a, d, b (not the order written)
      const at = [3, 1, 4, 2, 0][i]! * 1000 + 1_700_000_000;
      utimesSync(join(dir, name), at, at);
    });
    const json = (name: string) => name.endsWith(".json");
    expect(filesNewestFirst(dir, json).map((f) => f.slice(dir.length + 1))).toEqual([
      "c.json",
      "a.json",
      "d.json",
      "b.json",
    ]);
    pruneToNewest(dir, 2, json);
    expect(readdirSync(dir).sort()).toEqual(["a.json", "c.json", "notes.txt"]);
    expect(filesNewestFirst(join(dir, "missing"), json)).toEqual([]);
    pruneToNewest(join(dir, "missing"), 2, json);
  });
});
