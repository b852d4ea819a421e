import { describe, expect, it } from "vitest";
import { rulePathForModel } from "../rules/rule-path.ts";
import { testRule } from "../testing/rule-fixture.ts";
import { renderInterrupt, renderReminder } from "./templates.ts";

const rule = (name: string, content: string) => testRule(name, { content, conditions: [{ source: "x", flags: "" }] });

describe("templates", () => {
  it("renders one interrupt block per rule, deduplicated, with escaped attributes", () => {
    const text = renderInterrupt([rule("a", "Do A."), rule('b"<', "Do B."), rule("a", "Do A.")], "discard");
    expect(text.match(/<system-interrupt /g)).toHaveLength(2);
    expect(text).toContain('<system-interrupt reason="rule_violation" rule="a" path="a.md">');
    expect(text).toContain('rule="b&quot;&lt;"');
    expect(text).toContain("partial output was discarded");
    expect(text).toContain("Do B.\n</system-interrupt>");
  });

  it("says the partial is kept in keep mode", () => {
    expect(renderInterrupt([rule("a", "x")], "keep")).toContain("partial output is kept");
  });

  it("renders reminders separated by a blank line", () => {
    const text = renderReminder([rule("a", "Do A."), rule("b", "Do B.")], "tool");
    expect(text).toMatch(/^<system-reminder reason="rule_violation" rule="a" path="a.md">/);
    expect(text).toContain("</system-reminder>\n\n<system-reminder");
  });

  it("names the rule file by its display path, and never by an absolute path", () => {
    const shown = renderInterrupt(
      [testRule("a", { path: "/home/ann/p/.pi/rules/a.md", displayPath: ".pi/rules/a.md" })],
      "keep",
    );
    expect(shown).toContain('path=".pi/rules/a.md"');
    expect(renderReminder([testRule("a", { path: "/home/ann/secret/a.md" })], "prose")).not.toContain("/home/ann");
  });
});

describe("rulePathForModel", () => {
  const base = { cwd: "/home/ann/project", home: "/home/ann" };
  it("is project-relative, ~/ for the user's rules, pi-ttsr/rules for builtins, else the file name", () => {
    expect(rulePathForModel({ path: "/home/ann/project/.pi/rules/a.md", builtin: false }, base)).toBe(".pi/rules/a.md");
    expect(rulePathForModel({ path: "/home/ann/.pi/agent/rules/b.md", builtin: false }, base)).toBe(
      "~/.pi/agent/rules/b.md",
    );
    expect(
      rulePathForModel({ path: "/home/ann/project/node_modules/x/rules/no-ts-ignore.mdc", builtin: true }, base),
    ).toBe("pi-ttsr/rules/no-ts-ignore.mdc");
    expect(rulePathForModel({ path: "/etc/rules/c.md", builtin: false }, base)).toBe("c.md");
    expect(rulePathForModel({ path: "/home/annex/d.md", builtin: false }, base)).toBe("d.md");
  });
});
