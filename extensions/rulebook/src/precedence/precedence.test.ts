import { describe, expect, it } from "vitest";
import type { Rule } from "../rule.ts";
import { dedupeByName } from "./dedupe.ts";
import { orderProviders } from "./order.ts";

const rule = (name: string, provider: string, priority: number): Rule => ({
  name,
  path: `/${provider}/${name}.md`,
  content: name,
  source: { provider, priority, scope: "project", path: `/${provider}/${name}.md` },
  meta: {},
});

describe("precedence", () => {
  it("orders providers by priority, ties by registration order", () => {
    const ids = orderProviders([
      { id: "cline", priority: 40 },
      { id: "cursor", priority: 50 },
      { id: "native", priority: 100 },
      { id: "windsurf", priority: 50 },
      { id: "copilot", priority: 40 },
    ]).map((p) => p.id);
    expect(ids).toEqual(["native", "cursor", "windsurf", "cline", "copilot"]);
  });

  it("keeps the first rule of a name and records who shadowed the others", () => {
    const a = rule("style", "native", 100);
    const b = rule("style", "cursor", 50);
    const c = rule("other", "cursor", 50);
    const { rules, shadowed } = dedupeByName([a, b, c]);
    expect(rules).toEqual([a, c]);
    expect(shadowed).toEqual([{ rule: b, by: a }]);
  });
});
