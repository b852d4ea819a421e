import { basename } from "node:path";
import type { TtsrRule } from "../rules/types.ts";

/** Injected when a match aborted the stream (one block per rule). */
export const INTERRUPT_TEMPLATE = `<system-interrupt reason="rule_violation" rule="{{name}}" path="{{path}}">
Your output was interrupted because it matched this rule. {{partial}} Follow the rule and continue the task.

{{content}}
</system-interrupt>`;

/** Folded into a tool result, or sent as a follow-up after a prose match that did not interrupt. */
export const REMINDER_TEMPLATE = `<system-reminder reason="rule_violation" rule="{{name}}" path="{{path}}">
{{lead}}

{{content}}
</system-reminder>`;

export function escapeAttribute(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key] ?? "");
}

/** Rules once each, in first-seen order. */
export function dedupeRules(rules: readonly TtsrRule[]): TtsrRule[] {
  const seen = new Set<string>();
  return rules.filter((r) => !seen.has(r.name) && seen.add(r.name));
}

/** One hidden message for every rule matched by the interrupted stream. */
export function renderInterrupt(rules: readonly TtsrRule[], contextMode: "discard" | "keep"): string {
  const partial =
    contextMode === "discard"
      ? "Your partial output was discarded and is not in the conversation; start the answer again."
      : "Your partial output is kept above; do not repeat the violating part.";
  return renderBlocks(INTERRUPT_TEMPLATE, rules, { partial });
}

/** Reminder blocks (tool results, prose follow-ups), separated by a blank line. */
export function renderReminder(rules: readonly TtsrRule[], where: "tool" | "prose"): string {
  const lead =
    where === "tool"
      ? "The arguments of this tool call matched this rule. Check the result against it and fix what violates it."
      : "Your previous message matched this rule. Correct anything in it that violates the rule and follow it from now on.";
  return renderBlocks(REMINDER_TEMPLATE, rules, { lead });
}

/** One filled template per rule (deduplicated), separated by a blank line. */
function renderBlocks(template: string, rules: readonly TtsrRule[], extra: Record<string, string>): string {
  return dedupeRules(rules)
    .map((r) =>
      fill(template, {
        ...extra,
        name: escapeAttribute(r.name),
        // Never the absolute path (it goes to the provider): the project-relative or `~/` one set at load.
        path: escapeAttribute(r.displayPath ?? basename(r.path)),
        content: r.content.trim(),
      }),
    )
    .join("\n\n");
}
