import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_TTSR_SETTINGS } from "../settings/defaults.ts";
import type { TtsrSettings } from "../settings/schema.ts";
import { testRule } from "../testing/rule-fixture.ts";
import { admitsSource, gate } from "./registry.ts";
import { TtsrManager } from "./ttsr-manager.ts";

const rule = testRule;

const settings = (over: Partial<TtsrSettings> = {}): TtsrSettings => ({ ...DEFAULT_TTSR_SETTINGS, ...over });

function toolJson(args: Record<string, unknown>): string[] {
  const raw = JSON.stringify(args);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 5) out.push(raw.slice(i, i + 5));
  return out;
}

describe("registration", () => {
  it("skips, with a reason, rules whose conditions all fail, duplicates, and scopes reaching no stream", () => {
    const m = new TtsrManager([
      rule("ok"),
      rule("ok"),
      rule("broken", { conditions: [{ source: "(", flags: "" }] }),
      rule("half", {
        conditions: [
          { source: "(", flags: "" },
          { source: "fine", flags: "" },
        ],
      }),
      rule("nowhere", { scope: { text: false, thinking: false, tools: [] } }),
      rule("prose-with-globs", { scope: { text: true, thinking: false, tools: [] }, globs: ["*.ts"] }),
    ]);
    expect(m.registry.rules.map((r) => r.rule.name)).toEqual(["ok", "half"]);
    expect(m.registry.skipped.map((s) => [s.name, s.reason.split(" ").slice(0, 2).join(" ")])).toEqual([
      ["ok", "duplicate rule"],
      ["nowhere", "its scope"],
      ["prose-with-globs", "its globs"],
      ["broken", "no condition"],
    ]);
    expect(m.registry.issues.some((i) => i.rule === "half" && i.key === "condition")).toBe(true);
  });
});

describe("matching decisions", () => {
  it("interrupts on the delta that completes the match, never later, for any chunking", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30 }),
        fc.string({ maxLength: 30 }),
        fc.integer({ min: 1, max: 7 }),
        (a, b, size) => {
          const text = `${a}bad(${b}`;
          const m = new TtsrManager([rule("r")]);
          const firstMatchEnd = text.indexOf("bad(") + 4;
          let fired = -1;
          for (let i = 0; i * size < text.length; i++) {
            const d = m.checkDelta({ source: "text", chunk: text.slice(i * size, (i + 1) * size) });
            if (d.interrupt.length > 0) {
              fired = i;
              break;
            }
          }
          expect(fired).toBe(Math.ceil(firstMatchEnd / size) - 1);
        },
      ),
    );
  });

  it("buffers per stream: text and thinking do not join, and a new message resets", () => {
    const m = new TtsrManager([rule("r")]);
    expect(m.checkDelta({ source: "text", chunk: "ba" }).interrupt).toEqual([]);
    expect(m.checkDelta({ source: "thinking", chunk: "d(" }).interrupt).toEqual([]);
    m.resetStreams();
    expect(m.checkDelta({ source: "text", chunk: "d(" }).interrupt).toEqual([]);
    expect(m.checkDelta({ source: "text", chunk: "bad(" }).interrupt).toHaveLength(1);
  });

  it("scopes by source and tool name, and gates tool globs on the streamed path", () => {
    const m = new TtsrManager(
      [
        rule("prose", { scope: { text: true, thinking: false, tools: [] } }),
        rule("edits", { scope: { text: false, thinking: false, tools: [{ name: "edit", glob: "*.ts" }] } }),
      ],
      { cwd: "/proj" },
    );
    expect(m.checkDelta({ source: "thinking", chunk: "bad(" }).interrupt).toEqual([]);
    const fire = (name: string, path: string) => {
      let names: string[] = [];
      for (const chunk of toolJson({ content: "x bad( y", path })) {
        const d = m.checkDelta({ source: "tool", chunk, toolCall: { id: `${name}-${path}`, name } });
        names = names.concat(d.interrupt.map((x) => x.rule.name));
      }
      return names;
    };
    expect(fire("edit", "/proj/src/a.ts")).toEqual(["edits"]); // matched before the path streamed, fired once it did
    m.resetStreams();
    const fresh = new TtsrManager(
      m.registry.rules.map((r) => r.rule),
      { cwd: "/proj" },
    );
    expect(fresh.checkDelta({ source: "text", chunk: "bad(" }).interrupt.map((x) => x.rule.name)).toEqual(["prose"]);
    const other = new TtsrManager(
      m.registry.rules.map((r) => r.rule),
      { cwd: "/proj" },
    );
    let names: string[] = [];
    for (const chunk of toolJson({ path: "a.md", content: "bad(" })) {
      names = names.concat(
        other
          .checkDelta({ source: "tool", chunk, toolCall: { id: "1", name: "edit" } })
          .interrupt.map((x) => x.rule.name),
      );
    }
    for (const chunk of toolJson({ path: "a.ts", content: "bad(" })) {
      names = names.concat(
        other
          .checkDelta({ source: "tool", chunk, toolCall: { id: "2", name: "write" } })
          .interrupt.map((x) => x.rule.name),
      );
    }
    expect(names).toEqual([]);
  });

  it("a stream runs only the patterns of rules its source can pass (the rest cost it nothing)", () => {
    const m = new TtsrManager([
      rule("prose", { scope: { text: true, thinking: false, tools: [] } }),
      rule("tools", { scope: { text: false, thinking: false, tools: [{ name: "bash" }] } }),
      rule("edits", { scope: { text: true, thinking: true, tools: [{ glob: "*.ts" }] }, globs: ["src/**"] }),
    ]);
    const names = (source: "text" | "thinking" | "tool") =>
      m.registry.patternsFor(source).map((id) => m.registry.rules[m.registry.patternOwner[id]!]!.rule.name);
    expect(names("text")).toEqual(["prose"]);
    expect(names("thinking")).toEqual([]);
    expect(names("tool")).toEqual(["tools", "edits"]);
    // Never narrower than the gate: whatever a stream could fire on, it runs.
    const scopeArb = fc.record({
      text: fc.boolean(),
      thinking: fc.boolean(),
      tools: fc.array(
        fc.record({
          name: fc.option(fc.constantFrom("bash", "edit"), { nil: undefined }),
          glob: fc.option(fc.constant("*.ts"), { nil: undefined }),
        }),
        { maxLength: 2 },
      ),
    });
    fc.assert(
      fc.property(
        scopeArb,
        fc.boolean(),
        fc.constantFrom("text", "thinking", "tool"),
        fc.constantFrom("bash", "edit"),
        fc.constantFrom([], ["a.ts"], ["b.md"]),
        (scope, withGlobs, source, toolName, paths) => {
          const tools = scope.tools.map((t) => ({
            ...(t.name ? { name: t.name } : {}),
            ...(t.glob ? { glob: t.glob } : {}),
          }));
          const registry = new TtsrManager([
            rule("r", { scope: { ...scope, tools }, ...(withGlobs ? { globs: ["*.ts"] } : {}) }),
          ]).registry;
          const entry = registry.rules[0];
          if (!entry) return;
          if (gate(entry, source, toolName, paths) !== "fail") expect(admitsSource(entry, source)).toBe(true);
          expect(registry.patternsFor(source).length > 0).toBe(admitsSource(entry, source));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a globs gate never fires on prose", () => {
    const m = new TtsrManager([rule("g", { globs: ["*.ts"] })]);
    expect(m.checkDelta({ source: "text", chunk: "bad(" }).interrupt).toEqual([]);
  });

  it("non-interrupting tool matches go to exactly one sibling call and are dropped if the message aborts", () => {
    const m = new TtsrManager([rule("r")], { settings: settings({ interruptMode: "prose-only" }) });
    for (const id of ["a", "b"]) {
      for (const chunk of toolJson({ path: `${id}.ts`, content: "bad(" }))
        m.checkDelta({ source: "tool", chunk, toolCall: { id, name: "write" } });
    }
    expect(m.pending().tools).toEqual({ a: ["r"] });
    m.onMessageEnd("aborted");
    expect(m.pending().tools).toEqual({});
    expect(m.firings("r")).toBeUndefined();
  });

  it("queues prose matches for after a successful message; an interrupt carries them along", () => {
    const m = new TtsrManager([
      rule("soft", { interrupt: false }),
      rule("hard", { conditions: [{ source: "stop!", flags: "" }] }),
    ]);
    expect(m.checkDelta({ source: "text", chunk: "bad(" }).deferred.map((x) => x.rule.name)).toEqual(["soft"]);
    const d = m.checkDelta({ source: "text", chunk: " stop!" });
    expect(d.interrupt.map((x) => x.rule.name)).toEqual(["hard", "soft"]);
    expect(m.onMessageEnd("stop")).toEqual([]);
  });

  it("restores injected rules so a once rule does not fire again", () => {
    const m = new TtsrManager([rule("r")]);
    m.restoreInjected([{ rules: ["r"], turn: 2 }]);
    expect(m.checkDelta({ source: "text", chunk: "bad(" }).interrupt).toEqual([]);
  });

  it("a revoked injection makes the rule eligible again, also when restored", () => {
    const m = new TtsrManager([rule("r")]);
    m.restoreInjected([
      { rules: ["r"], turn: 0, kind: "interrupt" },
      { rules: ["r"], turn: 0, kind: "revoked" },
    ]);
    expect(m.checkDelta({ source: "text", chunk: "bad(" }).interrupt).toHaveLength(1);
    m.markInjected(["r"]);
    m.revokeInjected(["r"]);
    expect(m.firings("r")).toBeUndefined();
  });

  it("does nothing when disabled", () => {
    const m = new TtsrManager([rule("r")], { settings: settings({ enabled: false }) });
    expect(m.active).toBe(false);
    expect(m.checkDelta({ source: "text", chunk: "bad(" }).interrupt).toEqual([]);
  });
});
