import { describe, expect, it } from "vitest";
import { testRule } from "../testing/rule-fixture.ts";
import { buildRegistry } from "./build-registry.ts";

describe("buildRegistry", () => {
  it("compiles every rule together when nothing throws", () => {
    const { registry, issues } = buildRegistry([testRule("a"), testRule("b")]);
    expect(registry.rules.map((r) => r.rule.name)).toEqual(["a", "b"]);
    expect(issues).toEqual([]);
  });

  it("skips only the rule whose compilation throws, naming its file", () => {
    // A 70,000-character glob (minimatch would throw on it): a library caller's rule that normalization did not vet.
    const huge = testRule("huge", { scope: { text: false, thinking: false, tools: [{ glob: "a".repeat(70_000) }] } });
    const { registry, issues } = buildRegistry([testRule("a"), huge, testRule("b")]);
    expect(registry.rules.map((r) => r.rule.name)).toEqual(["a", "b"]);
    expect(issues).toEqual([
      expect.objectContaining({
        rule: "huge",
        path: "/rules/huge.md",
        message: expect.stringMatching(/compiling it failed/),
      }),
    ]);
  });
});
