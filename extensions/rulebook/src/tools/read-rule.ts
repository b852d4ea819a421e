import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import type { Rule } from "../rule.ts";
import { resolveRule } from "./resolve-rule.ts";

export const READ_RULE_TOOL = "read_rule";

/**
 * Register `read_rule`: returns a rule's content (frontmatter stripped) by exact name or
 * `rule://<name>`. `getReadable` is read at call time, so it follows the session's current rules.
 */
export function registerReadRuleTool(pi: ExtensionAPI, getReadable: () => readonly Rule[]): void {
  pi.registerTool({
    name: READ_RULE_TOOL,
    label: "Read rule",
    description:
      "Read a project rule listed in the system prompt's Rules section. Pass the rule's exact name or rule://<name>.",
    promptSnippet: "Read a project rule by name (or rule://<name>) from the Rules section",
    parameters: Type.Object({
      name: Type.String({ description: "Exact rule name, or rule://<name>" }),
    }),
    async execute(_toolCallId, params) {
      const result = resolveRule(params.name, getReadable());
      if (!result.ok) throw new Error(result.error);
      return {
        content: [{ type: "text", text: result.rule.content }],
        details: { name: result.rule.name, path: result.rule.path, provider: result.rule.source.provider },
      };
    },
  });
}
