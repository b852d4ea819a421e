import { describe, expect, it } from "vitest";
import { testRule } from "../testing/rule-fixture.ts";
import { renderInterrupt, renderReminder } from "./templates.ts";

const rule = (name: string, content: string) => testRule(name, { content, conditions: [{ source: "x", flags: "" }] });

describe("templates", () => {
  it("renders one interrupt block per rule, deduplicated, with escaped attributes", () => {
    const text = renderInterrupt([rule("a", "Do A."), rule('b"<', "Do B."), rule("a", "Do A.")], "discard");
    expect(text.match(/<system-interrupt /g)).toHaveLength(2);
    expect(text).toContain('<system-interrupt reason="rule_violation" rule="a" path="/rules/a.md">');
    expect(text).toContain('rule="b&quot;&lt;"');
    expect(text).toContain("partial output was discarded");
    expect(text).toContain("Do B.\n</system-interrupt>");
  });

  it("says the partial is kept in keep mode", () => {
    expect(renderInterrupt([rule("a", "x")], "keep")).toContain("partial output is kept");
  });

  it("renders reminders separated by a blank line", () => {
    const text = renderReminder([rule("a", "Do A."), rule("b", "Do B.")], "tool");
    expect(text).toMatch(/^<system-reminder reason="rule_violation" rule="a" path="\/rules\/a.md">/);
    expect(text).toContain("</system-reminder>\n\n<system-reminder");
  });
});
