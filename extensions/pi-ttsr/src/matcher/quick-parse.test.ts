import { execFileSync } from "node:child_process";
import { RegExpParser } from "@eslint-community/regexpp";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { benchRules } from "../../bench/workload.mjs";
import { quickParse } from "./quick-parse.ts";

/** regexpp's tree of a pattern without the `u`/`v` flag, as deferred.ts parses it. */
const regexpp = (source: string) =>
  new RegExpParser({ ecmaVersion: 2025 }).parsePattern(source, 0, source.length, {
    unicode: false,
    unicodeSets: false,
  });

/**
 * A tree as plain data, every field but the links regexpp adds beside the tree (`references`, `resolved`), with
 * each node's parent named by its type and offsets (so a wrong parent fails the comparison).
 */
function plain(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(plain);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "references" || key === "resolved") continue;
    if (key === "parent") {
      const p = value as { type: string; start: number; end: number } | null;
      out.parent = p && `${p.type}@${p.start}-${p.end}`;
    } else out[key] = plain(value);
  }
  return out;
}

/** Pieces rules are written with, and pieces only regexpp reads (Annex B, escapes, lookarounds). */
const PIECES = [
  "a",
  "b",
  "K",
  "z",
  "_",
  "0",
  "7",
  " ",
  ":",
  ",",
  "'",
  '"',
  "-",
  "/",
  "@",
  "=",
  "<",
  "é",
  "ſ",
  "\u{1F600}",
  "\\(",
  "\\)",
  "\\.",
  "\\-",
  "\\/",
  "\\[",
  "\\]",
  "\\{",
  "\\}",
  "\\\\",
  "\\$",
  "\\^",
  "\\|",
  "\\*",
  "\\+",
  "\\?",
  "\\s",
  "\\S",
  "\\d",
  "\\D",
  "\\w",
  "\\W",
  "\\b",
  "\\B",
  "\\n",
  "\\t",
  "\\r",
  "\\f",
  "\\v",
  ".",
  "^",
  "$",
  "|",
  "(",
  "(?:",
  ")",
  "*",
  "+",
  "?",
  "*?",
  "+?",
  "??",
  "{2}",
  "{1,3}",
  "{2,}",
  "{0,1}?",
  "[",
  "[^",
  "]",
  "[a-z]",
  "[^}]",
  "[\\w\\-.]",
  "[\\s;,)\\]]",
  "[A-F0-9]",
  "[\\b]",
  "[-a]",
  "[a-]",
  "[]",
  "[^]",
  "{",
  "}",
  "{,2}",
  "\\1",
  "\\0",
  "\\c",
  "\\cA",
  "\\x41",
  "\\u0041",
  "\\k<n>",
  "(?<n>",
  "(?=",
  "(?!",
  "(?<=",
  "(?<!",
  "(?i:",
  "\\p{L}",
  "\\e",
  "\\B*",
];

const validRegex = (source: string) => {
  try {
    new RegExp(source, "");
    return true;
  } catch {
    return false;
  }
};

describe("quickParse", () => {
  it("builds regexpp's tree node for node, or leaves the pattern to regexpp", () => {
    let read = 0;
    let valid = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 14 }), (pieces) => {
        const source = pieces.join("");
        if (!validRegex(source)) return;
        valid++;
        const quick = quickParse(source);
        if (quick === undefined) return;
        read++;
        expect(plain(quick)).toEqual(plain(regexpp(source)));
      }),
      { numRuns: 20_000 },
    );
    // the comparison ran on a good share of the valid patterns, not on a parser that leaves everything to regexpp
    expect(read / valid).toBeGreaterThan(0.3);
  });

  it("reads the regexes rules are written with", () => {
    const sources = [
      ...benchRules().map((s) => s.source),
      "console\\.(log|debug)\\(",
      "\\bany\\b",
      "import .* from ['\"]lodash['\"]",
      "[\\w\\-.]+@example\\.com",
      "^\\s*//\\s*TODO:?",
      "\\.then\\(\\s*\\)",
      "eval\\s*\\(",
    ];
    for (const source of sources) {
      expect(quickParse(source), source).toBeDefined();
      expect(plain(quickParse(source))).toEqual(plain(regexpp(source)));
    }
  });

  it("leaves lookarounds, backreferences, escapes it does not know and Annex B's literal braces to regexpp", () => {
    for (const source of ["a(?=b)", "(a)\\1", "(?<n>a)\\k<n>", "\\x41", "\\u0041", "\\cA", "a{", "a{,2}", "]", "\\0"])
      expect(quickParse(source), source).toBeUndefined();
  });

  it("screens the bench's 100 regex rules without loading regexpp (a fresh process, the built module)", () => {
    const deferred = new URL("../../dist/matcher/deferred.js", import.meta.url).href;
    const script = `
      import { createRequire } from "node:module";
      import { deferPattern } from ${JSON.stringify(deferred)};
      const specs = JSON.parse(process.argv[1]);
      const deferred = specs.filter((s) => deferPattern(s, s.flags)).length;
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes("regexpp"));
      console.log(JSON.stringify({ deferred, loaded }));`;
    const regexRules = benchRules().filter((s) => s.source.includes("\\s") || s.source.includes("["));
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(regexRules)], {
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual({ deferred: regexRules.length, loaded: [] });
  });
});
