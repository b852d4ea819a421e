import { describe, expect, it } from "vitest";
import { bucketRules } from "../buckets/buckets.ts";
import type { Rule } from "../rule.ts";
import { appendToSystemPrompt, renderRulesPrompt } from "./render.ts";

const rule = (name: string, extra: Partial<Rule> = {}): Rule => ({
  name,
  path: `/r/${name}.md`,
  content: `${name} body`,
  source: { provider: "native", priority: 100, scope: "project", path: `/r/${name}.md` },
  meta: {},
  ...extra,
});

describe("renderRulesPrompt", () => {
  it("is empty without rules, and leaves the prompt alone", () => {
    const text = renderRulesPrompt(bucketRules([], { ttsrActive: false }), {
      ttsrActive: false,
      globAttach: true,
      toolName: "read_rule",
    });
    expect(text).toBe("");
    expect(appendToSystemPrompt("base", text)).toBe("base");
  });

  it("escapes names, descriptions and globs", () => {
    const b = bucketRules([rule('a"<b>', { description: "x & y < z", globs: ["<*>.ts"] })], { ttsrActive: true });
    const text = renderRulesPrompt(b, { ttsrActive: true, globAttach: true, toolName: "read_rule" });
    expect(text).toContain(
      '<rule name="a&quot;&lt;b&gt;">\n<description>x &amp; y &lt; z</description>\n<glob>&lt;*&gt;.ts</glob>\n</rule>',
    );
  });

  it("only always-apply rules: no Rules section", () => {
    const b = bucketRules([rule("a", { alwaysApply: true })], { ttsrActive: true });
    expect(renderRulesPrompt(b, { ttsrActive: true, globAttach: true, toolName: "read_rule" })).toBe(
      '# Always-apply rules\n\nFollow these rules at all times.\n\n<rule name="a">\na body\n</rule>',
    );
  });
});
