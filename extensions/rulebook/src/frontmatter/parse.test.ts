import { describe, expect, it } from "vitest";
import { parseFrontmatter } from "./parse.ts";

describe("parseFrontmatter", () => {
  it("parses YAML frontmatter and trims the body", () => {
    const r = parseFrontmatter("---\ndescription: Use tabs\nglobs: [a, b]\nalwaysApply: true\n---\n\nBody here\n\n");
    expect({ ...r, data: { ...r.data } }).toEqual({
      data: { description: "Use tabs", globs: ["a", "b"], alwaysApply: true },
      body: "Body here",
      hasFrontmatter: true,
    });
  });

  it("handles CRLF and a BOM", () => {
    const r = parseFrontmatter("\ufeff---\r\ndescription: x\r\n---\r\nBody\r\n");
    expect({ ...r.data }).toEqual({ description: "x" });
    expect(r.body).toBe("Body");
  });

  it("keeps a file without frontmatter whole", () => {
    expect(parseFrontmatter("# Title\n\ntext")).toEqual({ data: {}, body: "# Title\n\ntext", hasFrontmatter: false });
  });

  it("treats an unclosed block as body and says so", () => {
    const r = parseFrontmatter("---\ndescription: x\nno close");
    expect(r.unclosed).toBe(true);
    expect(r.body).toBe("---\ndescription: x\nno close");
  });

  it("accepts an empty block", () => {
    const empty = parseFrontmatter("---\n---\nBody");
    expect({ ...empty, data: { ...empty.data } }).toEqual({ data: {}, body: "Body", hasFrontmatter: true });
  });

  it("reads a value YAML rejects (description: a: b: [) as its text, without falling back", () => {
    const r = parseFrontmatter(
      "---\ndescription: a: b: [\nalwaysApply: true\nthinking-level: high\nttsr_trigger: foo\n---\nBody",
    );
    expect(r.fallback).toBeUndefined();
    expect({ ...r.data }).toEqual({
      description: "a: b: [",
      alwaysApply: true,
      "thinking-level": "high",
      ttsr_trigger: "foo",
    });
    expect(r.body).toBe("Body");
  });

  it("falls back to key: value lines when YAML fails, keeping types and naming lost lines", () => {
    const r = parseFrontmatter('---\ndescription: "Cursor rules for x"\n  bad: [\nalwaysApply: false\n---\nBody');
    expect(r.fallback?.error).toMatch(/./);
    expect({ ...r.data }).toEqual({ description: "Cursor rules for x", alwaysApply: false });
    expect(r.fallback?.lost).toEqual([{ line: 3, text: "  bad: [" }]); // the file's line: `---` is line 1
  });

  it("falls back when the frontmatter is not a mapping", () => {
    const r = parseFrontmatter("---\n- a\n- b\n---\nBody");
    expect(r.fallback?.error).toMatch(/mapping/);
    expect(r.data).toEqual({});
  });

  it("never evaluates ---js frontmatter", () => {
    const g = globalThis as { __rulebookPwned?: boolean };
    const r = parseFrontmatter("---js\n{ description: (globalThis.__rulebookPwned = true, 'x') }\n---\nBody");
    expect(g.__rulebookPwned).toBeUndefined();
    expect(r.fallback?.error).toMatch(/not allowed/);
    expect(r.body).toBe("Body");
  });

  it("does not treat ---- (a rule line) as frontmatter", () => {
    expect(parseFrontmatter("----\ntext").hasFrontmatter).toBe(false);
  });

  it("reads Cursor's unquoted glob values (and list items, and [*.ts]) as text; quoted and typed values stay YAML", () => {
    const r = parseFrontmatter(
      "---\nglobs: *.tsx, src/**/*.ts # tsx too\napplyTo: **/*.py\npaths:\n  - *.md\n  - 'docs/**'\nother: [*.a, b]\nalwaysApply: true\n---\nBody",
    );
    // `other` (not a glob key) still trips YAML: the line fallback reads every line, so nothing is lost
    expect(r.fallback?.lost).toEqual([]);
    expect({ ...r.data }).toEqual({
      globs: "*.tsx, src/**/*.ts",
      applyTo: "**/*.py",
      paths: ["*.md", "docs/**"],
      other: ["*.a", "b"],
      alwaysApply: true,
    });
    const yaml = parseFrontmatter(
      "---\nglobs: *.tsx, src/**/*.ts # tsx too\napplyTo: **/*.py\npaths:\n  - *.md\n  - 'docs/**'\nalwaysApply: true\n---\nBody",
    );
    expect(yaml.fallback).toBeUndefined();
    expect({ ...yaml.data }).toEqual({
      globs: "*.tsx, src/**/*.ts",
      applyTo: "**/*.py",
      paths: ["*.md", "docs/**"],
      alwaysApply: true,
    });
    const list = parseFrontmatter("---\nglobs: [*.ts, src/{a,b}/**]\n---\nBody");
    expect({ ...list.data }).toEqual({ globs: ["*.ts", "src/{a,b}/**"] });
  });

  it("refuses frontmatter over the size limit and alias bombs, with the reason", () => {
    expect(parseFrontmatter(`---\ndescription: ${"x".repeat(70_000)}\n---\nBody`).refused?.reason).toMatch(
      /frontmatter is 700\d\d characters \(limit 65536\)/,
    );
    const bomb = [
      "---",
      'a: &a ["l","l","l","l","l","l","l","l","l","l"]',
      ..."bcde".split("").map((k, i) => `${k}: &${k} [${Array(10).fill(`*${"abcd"[i]}`).join(",")}]`),
      "---",
      "Body",
    ].join("\n");
    expect(parseFrontmatter(bomb)).toMatchObject({ data: {}, refused: { reason: expect.stringMatching(/aliases/) } });
  });

  it("---yaml is YAML (Cursor's unquoted globs included)", () => {
    const r = parseFrontmatter("---yaml\nglobs: *.ts\ndescription: a: b\n---\nBody");
    expect(r.fallback).toBeUndefined();
    expect({ ...r.data }).toEqual({ globs: "*.ts", description: "a: b" });
  });
});
