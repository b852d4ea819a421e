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
        scope: "text, b@d",
      }),
    );
    expect(r).toMatchObject({ window: "accumulated", interrupt: true, scope: { text: true } });
    expect(issues.map((i) => i.key)).toEqual(["flags", "scope", "window", "maxFirings", "cooldown", "interrupt"]);
    expect(issues.every((i) => i.path === "/p/.pi/rules/r.md")).toBe(true);
  });

  it("leaves a scope of only unknown tokens reaching no stream", () => {
    const { rule: r } = normalizeRule(rule({ condition: "x", scope: "b@d" }));
    expect(r?.scope).toEqual({ text: false, thinking: false, tools: [] });
  });
});

describe("rules written for the reference (oh-my-pi) and other engines", () => {
  it("translates a leading (?i), (?m), (?s), (?im) to flags, merged with the flags key", () => {
    const conditions = (condition: string, flags?: string) =>
      normalizeRule(rule({ condition, ...(flags ? { flags } : {}) })).rule?.conditions;
    expect(conditions("(?i)todo")).toEqual([{ source: "todo", flags: "i" }]);
    expect(conditions("(?m)^x$")).toEqual([{ source: "^x$", flags: "m" }]);
    expect(conditions("(?s)a.b")).toEqual([{ source: "a.b", flags: "s" }]);
    expect(conditions("(?im)^todo", "s")).toEqual([{ source: "^todo", flags: "ims" }]);
    expect(conditions("/(?i)todo/m")).toEqual([{ source: "todo", flags: "im" }]);
    // What follows the group is the pattern, never a "/src/flags" literal.
    expect(conditions("(?i)/usr/")).toEqual([{ source: "/usr/", flags: "i" }]);
  });

  it("names file and key of an inline group JavaScript cannot take, and keeps the rule's other conditions", () => {
    for (const bad of ["a(?i)b", "(?x)a b", "(?-i)a", "(?i:a)b", "(?P<n>a)"]) {
      const { rule: r, issues } = normalizeRule(rule({ condition: [bad, "ok"] }));
      expect(r?.conditions).toEqual([{ source: "ok", flags: "" }]);
      expect(issues).toEqual([
        expect.objectContaining({
          path: "/p/.pi/rules/r.md",
          key: "condition",
          message: expect.stringMatching(
            /inline group "[^"]+"( in the middle of the pattern)? is not supported by JavaScript/,
          ),
        }),
      ]);
    }
    // Alone, the rule has no usable condition: it is skipped, with the reason rulebook's doctor gives too.
    const alone = normalizeRule(rule({ condition: "(?x)a" }));
    expect(alone.rule).toBeUndefined();
    expect(alone.skipped).toEqual({
      key: "condition",
      reason: expect.stringMatching(/^no stream condition can be used: \/\(\?x\)a\/: inline group "\(\?x\)"/),
    });
    // Groups that are not inline flags are left alone.
    expect(normalizeRule(rule({ condition: "(?:a)(?=b)(?<!c)(?<n>d)[(?i)]\\(?i" })).issues).toEqual([]);
  });

  it("reads interruptMode per rule, and names a bad one", () => {
    expect(normalizeRule(rule({ condition: "x", interruptMode: "prose-only" })).rule?.interruptMode).toBe("prose-only");
    const bad = normalizeRule(rule({ condition: "x", interruptMode: "sometimes" }));
    expect(bad.rule?.interruptMode).toBeUndefined();
    expect(bad.issues).toEqual([expect.objectContaining({ key: "interruptMode" })]);
  });

  it("reads bare tool names in scope", () => {
    expect(normalizeRule(rule({ condition: "x", scope: "edit" })).rule?.scope).toEqual({
      text: false,
      thinking: false,
      tools: [{ name: "edit" }],
    });
    expect(normalizeRule(rule({ condition: "x", scope: ["tooling"] })).rule?.scope.tools).toEqual([
      { name: "tooling" },
    ]);
    expect(normalizeRule(rule({ condition: "x", scope: "text, edit(*.ts), toolcall" })).rule?.scope).toEqual({
      text: true,
      thinking: false,
      tools: [{ name: "edit", glob: "*.ts" }, {}],
    });
    expect(normalizeRule(rule({ condition: "x", scope: "tool(*.md)" })).rule?.scope.tools).toEqual([{ glob: "*.md" }]);
  });

  it("reads a file-glob condition as an edit or write of a matching path", () => {
    const only = normalizeRule(rule({ condition: "*.rs" })).rule;
    expect(only?.conditions).toEqual([{ source: "[\\s\\S]", flags: "" }]);
    expect(only?.scope).toEqual({
      text: false,
      thinking: false,
      tools: [
        { name: "edit", glob: "*.rs" },
        { name: "write", glob: "*.rs" },
      ],
    });
    const mixed = normalizeRule(rule({ condition: ["src/**/*.ts", "unsafe"], scope: "text" })).rule;
    expect(mixed?.conditions).toEqual([{ source: "unsafe", flags: "" }]);
    expect(mixed?.scope.text).toBe(true);
    expect(mixed?.scope.tools.map((t) => `${t.name}(${t.glob})`)).toEqual(["edit(src/**/*.ts)", "write(src/**/*.ts)"]);
    // Only globs: the rule matches any content, so an explicit scope is ignored (said), never text.
    const scoped = normalizeRule(rule({ condition: "*.rs", scope: "text" }));
    expect(scoped.rule?.scope.text).toBe(false);
    expect(scoped.issues).toEqual([
      expect.objectContaining({ key: "scope", message: expect.stringMatching(/ignored/) }),
    ]);
    // Regexes are not globs.
    for (const regex of ["https?://[^/]*", "//.*TODO", "src/[^/]*\\.ts"]) {
      expect(normalizeRule(rule({ condition: regex })).rule?.conditions, regex).toHaveLength(1);
      expect(normalizeRule(rule({ condition: regex })).rule?.conditions[0]?.source, regex).toBe(regex);
    }
    expect(normalizeRule(rule({ condition: "a.*b" })).rule?.conditions).toEqual([{ source: "a.*b", flags: "" }]);
    expect(normalizeRule(rule({ condition: "\\*.rs" })).rule?.scope.tools).toEqual([{}]);
  });

  it("unquotes what the YAML line fallback left quoted", () => {
    // rulebook's fallback turns `scope: "text","thinking"` into `text","thinking`.
    for (const scope of ['text","thinking', '"text","thinking"', "'text', 'thinking'"]) {
      expect(normalizeRule(rule({ condition: "x", scope })).rule?.scope).toEqual({
        text: true,
        thinking: true,
        tools: [],
      });
    }
  });

  it("is not a stream rule when it is a Windsurf rule, even if discovery read its trigger as a condition", () => {
    for (const trigger of ["always_on", "model_decision", "glob", "manual"]) {
      expect(normalizeRule(rule({ trigger, globs: "*.ts" }, { condition: [trigger] })).rule).toBeUndefined();
    }
  });

  it("lists unknown keys once, naming file and keys", () => {
    const { issues } = normalizeRule(rule({ condition: "x", astCondition: "a", reminder: "r", description: "d" }));
    expect(issues).toEqual([
      expect.objectContaining({
        path: "/p/.pi/rules/r.md",
        key: "astCondition, reminder",
        message: expect.stringMatching(/unknown keys astCondition, reminder/),
      }),
    ]);
  });

  it("treats frontmatter as data: keys named like object members are unknown keys, not crashes", () => {
    const meta = JSON.parse(
      '{"condition":"x","constructor":1,"toString":"a","hasOwnProperty":2,"__proto__":{"scope":"thinking"}}',
    );
    const { rule: r, issues } = normalizeRule(rule(meta));
    expect(r?.scope).toEqual({ text: true, thinking: false, tools: [{}] });
    expect(issues[0]?.message).toMatch(/constructor, toString, hasOwnProperty, __proto__/);
  });

  it("names an unusable glob (too long, unmatchable) and drops only it", () => {
    const long = `src/${"a".repeat(70_000)}`;
    const { rule: r, issues } = normalizeRule(rule({ condition: "x", scope: "tool", globs: [long, "*.ts"] }));
    expect(r?.globs).toEqual(["*.ts"]);
    expect(issues).toEqual([
      expect.objectContaining({ key: "globs", message: expect.stringMatching(/70004 characters/) }),
    ]);
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
