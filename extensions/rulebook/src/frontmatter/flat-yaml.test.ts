import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { flatYaml } from "./flat-yaml.ts";
import { parseFrontmatter } from "./parse.ts";

/** The reference: the js-yaml gray-matter depends on, as parse.ts loads it. */
const require = createRequire(import.meta.url);
const { safeLoad } = createRequire(require.resolve("gray-matter"))("js-yaml") as { safeLoad: (s: string) => unknown };

/** Frontmatter as users write it for each tool: all of it must be answered without js-yaml. */
const FLAT = [
  'description: "No eval"\ncondition: "\\\\beval\\\\("\nscope: text',
  "description: Use tabs\nalwaysApply: true",
  "trigger: model_decision\ndescription: When writing SQL, use parameters",
  "ttsr_trigger: 'console\\.log'\nglobs: 'src/**/*.ts'",
  'applyTo: "**/*.py"\npriority: 10\nenabled: False',
  "# a comment\nname: no-any\n\ninterrupt: false\nflags: i",
  "description: It's fine (really), see docs/rules.md\nscope: tool:bash",
];

/** Characters that make YAML interesting: quotes, escapes, indicators, spaces, tabs, controls, non-ASCII. */
const tricky = fc.constantFrom(
  ..."aZ09 _-.:#,[]{}&*!|>'\"%@`?/\\()+=~\t\r\u0000\u0007\u0085\u00a0é€\ud83d\ude00\ufeff".split(""),
  "\\n",
  "\\u0041",
  "\\x41",
  "\\/",
  "''",
  ": ",
  " #",
  "\n",
);
const text = fc.array(tricky, { maxLength: 10 }).map((a) => a.join(""));
/** Word-like text, with the marks flat values may hold: most generated values are then answered. */
const simple = fc
  .array(fc.constantFrom(..."aZ09 _-.,:/()!?+='\\\"".split("")), { maxLength: 12 })
  .map((a) => a.join(""));
const value = fc.oneof(
  text,
  simple,
  simple.map((t) => `a${t}`),
  simple.map((t) => `"${t}"`),
  simple.map((t) => `'${t}'`),
  text.map((t) => `"${t}"`),
  text.map((t) => `'${t}'`),
  fc.constantFrom("true", "True", "tRUE", "yes", "on", "null", "~", "NaN", ".inf", "0", "010", "-1", "1_000", "1.5"),
  fc.constantFrom("2024-01-02", "12:30", "0x1f", "1e3", "[a, b]", "{a: 1}", "|", ">", "*ref", "&a x", "!!str x"),
  fc.integer().map(String),
);
const key = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("description", "condition", "a-b", "_x", "constructor", "on", "True") },
  { weight: 1, arbitrary: fc.constantFrom("__proto__", "1", "a b", "é", "-a", "") },
);
const separator = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(": ", ":  ") },
  { weight: 1, arbitrary: fc.constantFrom(":", ": \t", " : ", ":\t") },
);
const line = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(key, separator, value, fc.constantFrom("", "", " ", "  ")) },
  { weight: 1, arbitrary: fc.constantFrom("", "  ", "# note", "  # indented", "- item", "  nested: 1", "...") },
  { weight: 1, arbitrary: text.map((t) => `#${t.replaceAll("\n", " ")}`) },
);
const block = fc
  .array(line, { minLength: 1, maxLength: 4 })
  .map((lines) => lines.map((l) => (typeof l === "string" ? l : l.join(""))).join("\n"));

describe("flatYaml", () => {
  it("answers what js-yaml answers, whenever it answers", () => {
    let answered = 0;
    fc.assert(
      fc.property(block, (yaml) => {
        const flat = flatYaml(yaml);
        if (flat === undefined) return;
        answered++;
        expect(flat).toEqual(safeLoad(yaml));
      }),
      { numRuns: 20_000 },
    );
    // the generator reaches the answered cases, not only the refusals
    expect(answered).toBeGreaterThan(1_000);
  });

  it("answers the frontmatter rule files have, as js-yaml does", () => {
    for (const yaml of FLAT) {
      expect(flatYaml(yaml), yaml).toEqual(safeLoad(yaml));
    }
  });

  it("leaves to js-yaml what it does not read exactly", () => {
    for (const yaml of [
      "a: [x, y]",
      "a:\n  - x",
      "a: |\n  text",
      'a: "\\u0041"',
      "a: 2024-01-02",
      "a: 1.5",
      "a: 010",
      "a: x\na: y",
      "__proto__: x",
      "a: x # note",
      "a:\tx",
      "a: x\r",
      "a:",
      "a: *ref",
      // found by review: js-yaml refuses a NUL even in a comment
      "_a:  true\n# \u0000",
    ]) {
      expect(flatYaml(yaml), yaml).toBeUndefined();
    }
  });

  it("parseFrontmatter gives the same data through it", () => {
    const file = `---\n${FLAT[0]}\n---\nNever call eval().\n`;
    expect(parseFrontmatter(file).data).toEqual({ description: "No eval", condition: "\\beval\\(", scope: "text" });
  });
});
