import type { RuleBuckets } from "../buckets/buckets.ts";
import type { Rule } from "../rule.ts";

/** Escape text placed inside the prompt's XML-like tags. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

export interface RenderOptions {
  ttsrActive: boolean;
  globAttach: boolean;
  /** Name of the tool the model reads rules with. */
  toolName: string;
}

function listEntry(rule: Rule, note?: string): string {
  const lines = [`<rule name="${escapeXml(rule.name)}">`];
  if (rule.description) lines.push(`<description>${escapeXml(rule.description)}</description>`);
  for (const glob of rule.globs ?? []) lines.push(`<glob>${escapeXml(glob)}</glob>`);
  if (note) lines.push(`<note>${escapeXml(note)}</note>`);
  lines.push("</rule>");
  return lines.join("\n");
}

/**
 * The text rulebook appends to the system prompt: always-apply rule contents first, then a
 * `# Rules` section listing the rules the model can read on demand. Empty when there is nothing
 * to say. Built once per session from the buckets, so the prompt is stable turn to turn (cache-friendly).
 */
export function renderRulesPrompt(buckets: RuleBuckets, options: RenderOptions): string {
  const parts: string[] = [];
  if (buckets.alwaysApply.length) {
    const bodies = buckets.alwaysApply.map((rule) => `<rule name="${escapeXml(rule.name)}">\n${rule.content}\n</rule>`);
    parts.push(["# Always-apply rules", "", "Follow these rules at all times.", "", bodies.join("\n\n")].join("\n"));
  }
  const entries: string[] = [];
  for (const rule of buckets.rulebook) entries.push(listEntry(rule));
  if (options.globAttach) {
    for (const rule of buckets.glob)
      entries.push(listEntry(rule, "attached automatically when you read or edit a matching file"));
  }
  if (!options.ttsrActive) {
    for (const rule of buckets.ttsr)
      entries.push(listEntry(rule, "stream rule; read it before writing code it may concern"));
  }
  if (entries.length) {
    parts.push(
      [
        "# Rules",
        "",
        `Read a rule with the ${options.toolName} tool (its name, or rule://<name>) when your task matches its description or globs, before you act.`,
        "",
        "<rules>",
        entries.join("\n"),
        "</rules>",
      ].join("\n"),
    );
  }
  return parts.join("\n\n");
}

/** Append the rules text to a system prompt (unchanged when there is nothing to add). */
export function appendToSystemPrompt(systemPrompt: string, rulesText: string): string {
  if (!rulesText) return systemPrompt;
  return `${systemPrompt.replace(/\s+$/, "")}\n\n${rulesText}\n`;
}
