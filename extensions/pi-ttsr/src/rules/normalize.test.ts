import { describe, expect, it } from "vitest";
import { normalizeRule, parseScope, splitScopeTokens } from "./normalize.ts";
import type { SourceRule } from "./types.ts";

function rule(meta: Record<string, unknown>, extra: Partial<SourceRule> = {}): SourceRule {
  return {
    name: "r",
    path: "/p/.pi/rules/r.md",
    content: "body",
    source: { provider: "native", priority: 100, scope: "project", path: "/p/.pi/rules/r.md" },
    meta,
    ...extra,
  };
}

describe("normalizeRule", () => {
  it("reads the lifecycle format: condition list, scope tokens, globs", () => {
    const { rule: r, issues } = normalizeRule(
      rule(
        { condition: ["a+", "b"], scope: "text, tool:edit(*.{ts,tsx})", globs: ["src/**"] },
        {
          condition: ["a+", "b"],
          globs: ["src/**"],
        },
      ),
    );
    expect(issues).toEqual([]);
    expect(r).toMatchObject({
      format: "lifecycle",
      window: "accumulated",
      conditions: [
        { source: "a+", flags: "" },
        { source: "b", flags: "" },
      ],
      scope: { text: true, thinking: false, tools: [{ name: "edit", glob: "*.{ts,tsx}" }] },
      globs: ["src/**"],
      interrupt: true,
    });
  });

  it("reads the proposal format: trigger + flags, scope as the window, maxFirings, cooldown", () => {
    const { rule: r } = normalizeRule(
      rule(
        { trigger: "import.*x", flags: "i", scope: "chunk", maxFirings: 3, cooldown: 30 },
        { condition: ["import.*x"] },
      ),
    );
    expect(r).toMatchObject({
      format: "proposal",
      window: "chunk",
      conditions: [{ source: "import.*x", flags: "i" }],
      scope: { text: true, thinking: false, tools: [{}] },
      maxFirings: 3,
      cooldown: 30,
    });
  });

  it("defaults the proposal window to line and accepts the legacy spellings", () => {
    expect(normalizeRule(rule({ trigger: "x" })).rule?.window).toBe("line");
    expect(normalizeRule(rule({ ttsr_trigger: "x" })).rule?.conditions).toEqual([{ source: "x", flags: "" }]);
    expect(normalizeRule(rule({ ttsrTrigger: ["x", "y"] })).rule?.conditions).toHaveLength(2);
    expect(normalizeRule(rule({ condition: "/x+/i" })).rule?.conditions).toEqual([{ source: "x+", flags: "i" }]);
    expect(normalizeRule(rule({ condition: "/usr/bin/" })).rule?.conditions).toEqual([
      { source: "/usr/bin/", flags: "" },
    ]);
  });

  it("is not a TTSR rule without a condition, nor with a Windsurf activation trigger", () => {
    expect(normalizeRule(rule({ description: "d" })).rule).toBeUndefined();
    expect(normalizeRule(rule({ trigger: "always_on" })).rule).toBeUndefined();
  });

  it("reads string values from the fallback line parser", () => {
    const { rule: r, issues } = normalizeRule(
      rule({ condition: "x", maxFirings: "2", cooldown: "10s", interrupt: "false" }),
    );
    expect(issues).toEqual([]);
    expect(r).toMatchObject({ maxFirings: 2, cooldown: 10, interrupt: false });
  });

  it("names the file and key of each bad value, and keeps the rest", () => {
    const { rule: r, issues } = normalizeRule(
      rule({
        condition: "x",
        flags: "q",
        window: "page",
        maxFirings: 0,
        cooldown: -1,
        interrupt: "maybe",
        scope: "text, bogus",
      }),
    );
    expect(r).toMatchObject({ window: "accumulated", interrupt: true, scope: { text: true } });
    expect(issues.map((i) => i.key)).toEqual(["flags", "scope", "window", "maxFirings", "cooldown", "interrupt"]);
    expect(issues.every((i) => i.path === "/p/.pi/rules/r.md")).toBe(true);
  });

  it("leaves a scope of only unknown tokens reaching no stream", () => {
    const { rule: r } = normalizeRule(rule({ condition: "x", scope: "bogus" }));
    expect(r?.scope).toEqual({ text: false, thinking: false, tools: [] });
  });
});

describe("scope tokens", () => {
  it("splits on commas and spaces outside brackets", () => {
    expect(splitScopeTokens("text,tool:edit(*.{ts,tsx}) thinking")).toEqual([
      "text",
      "tool:edit(*.{ts,tsx})",
      "thinking",
    ]);
  });

  it("parses every token form", () => {
    expect(parseScope(["tool", "tool:bash", "tool:write(src/**)", "line"])).toEqual({
      scope: { text: false, thinking: false, tools: [{}, { name: "bash" }, { name: "write", glob: "src/**" }] },
      window: "line",
      unknown: [],
    });
  });
});
