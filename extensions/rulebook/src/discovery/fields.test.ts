import { describe, expect, it } from "vitest";
import type { RuleWarning } from "../rule.ts";
import { normalizeCline } from "./cline.ts";
import { rebaseGlob } from "./collect.ts";
import { normalizeCopilot } from "./copilot.ts";
import { normalizeCursor } from "./cursor.ts";
import { type FieldContext, splitGlobList } from "./fields.ts";
import { normalizeNative } from "./native.ts";
import { normalizeWindsurf } from "./windsurf.ts";

const ctx = (data: Record<string, unknown>): FieldContext & { warnings: RuleWarning[] } => ({
  data,
  path: "/r/x.md",
  provider: "test",
  warnings: [],
});
const spec = {
  file: { path: "/r/x.md", relPath: "x.md", stats: {} as never },
  name: "x",
  scope: "project" as const,
  root: "/r",
};

describe("frontmatter fields per provider", () => {
  it("splits comma lists but not brace alternatives", () => {
    expect(splitGlobList("src/**/*.ts, {a,b}/*.js ,, 'c/*'")).toEqual(["src/**/*.ts", "{a,b}/*.js", "c/*"]);
  });

  it("rebases nested globs", () => {
    expect(rebaseGlob("*.ts", "pkg")).toBe("pkg/**/*.ts");
    expect(rebaseGlob("src/*.ts", "pkg")).toBe("pkg/src/*.ts");
    expect(rebaseGlob("!gen/**", "pkg")).toBe("!pkg/gen/**");
    expect(rebaseGlob("*.ts", "")).toBe("*.ts");
  });

  it("cursor keeps only a real true for alwaysApply", () => {
    expect(normalizeCursor(ctx({ alwaysApply: false }), spec).alwaysApply).toBeUndefined();
    const c = ctx({ alwaysApply: "true" });
    expect(normalizeCursor(c, spec).alwaysApply).toBeUndefined();
    expect(c.warnings).toHaveLength(1);
  });

  it("native keeps false, and reads trigger as the stream condition; cursor does not", () => {
    expect(normalizeNative(ctx({ alwaysApply: false, trigger: "x" }), spec)).toMatchObject({
      alwaysApply: false,
      condition: ["x"],
    });
    expect(normalizeCursor(ctx({ trigger: "x" }), spec).condition).toBeUndefined();
  });

  it("condition beats the legacy keys, and the loser is reported", () => {
    const c = ctx({ condition: ["a", "b"], ttsr_trigger: "c" });
    expect(normalizeNative(c, spec).condition).toEqual(["a", "b"]);
    expect(c.warnings.map((w) => w.key)).toEqual(["ttsr_trigger"]);
    expect(normalizeNative(ctx({ ttsrTrigger: "t" }), spec).condition).toEqual(["t"]);
  });

  it("windsurf trigger is the activation mode", () => {
    expect(normalizeWindsurf(ctx({ trigger: "always_on" }), spec).alwaysApply).toBe(true);
    expect(normalizeWindsurf(ctx({ trigger: "manual" }), spec).manual).toBe(true);
    const bad = ctx({ trigger: "sometimes" });
    normalizeWindsurf(bad, spec);
    expect(bad.warnings[0]?.message).toMatch(/one of always_on, manual, model_decision, glob/);
    const noGlobs = ctx({ trigger: "glob" });
    normalizeWindsurf(noGlobs, spec);
    expect(noGlobs.warnings[0]?.message).toMatch(/needs globs/);
  });

  it("cline: paths are globs; a rule without paths applies always, as in Cline", () => {
    expect(normalizeCline(ctx({ paths: ["a/**"] }), spec)).toMatchObject({ globs: ["a/**"], alwaysApply: undefined });
    expect(normalizeCline(ctx({}), spec).alwaysApply).toBe(true);
    expect(normalizeCline(ctx({ description: "d" }), spec)).toMatchObject({ description: "d", alwaysApply: true });
    const globsKey = ctx({ globs: "src/**" });
    expect(normalizeCline(globsKey, spec)).toMatchObject({ globs: undefined, alwaysApply: true });
    expect(globsKey.warnings[0]?.message).toMatch(/Cline reads paths, not globs/);
    expect(normalizeCline(ctx({ alwaysApply: false }), spec).alwaysApply).toBe(false);
  });

  it("copilot: applyTo ** is always-apply; no applyTo and no description is manual", () => {
    expect(normalizeCopilot(ctx({ applyTo: "**" }), spec)).toMatchObject({ alwaysApply: true });
    expect(normalizeCopilot(ctx({}), spec).manual).toBe(true);
    expect(normalizeCopilot(ctx({ description: "d" }), spec).manual).toBe(false);
  });
});
