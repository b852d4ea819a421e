import type { TtsrRule } from "../rules/types.ts";

/** A normalized TTSR rule for unit tests: a lifecycle rule watching every stream, overridable per field. */
export function testRule(name: string, over: Partial<TtsrRule> = {}): TtsrRule {
  return {
    name,
    path: `/rules/${name}.md`,
    content: `${name} content`,
    conditions: [{ source: "bad\\(", flags: "" }],
    conditionKey: "condition",
    window: "accumulated",
    scope: { text: true, thinking: true, tools: [{}] },
    interrupt: true,
    format: "lifecycle",
    builtin: false,
    origin: { provider: "native", scope: "project", path: `/rules/${name}.md` },
    ...over,
  };
}
