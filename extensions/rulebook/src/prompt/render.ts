import type { RuleBuckets } from "../buckets/buckets.ts";
import type { Rule } from "../rule.ts";

import { escapeXml } from "./escape.ts";

/**
 * The section of pi's structured system prompt that holds the rules; pi renders it as `<rulebook>...</rulebook>`
 * after its own sections.
 */
export const PROMPT_SECTION = "rulebook";

/** A description longer than this is cut in the list (the rule itself is read whole with `read_rule`). */
export const MAX_LISTED_DESCRIPTION = 500;

export interface RenderOptions {
  ttsrActive: boolean;
  globAttach: boolean;
  /** Name of the tool the model reads rules with. */
  toolName: string;
  /** Characters of the `# Rules` list; default 30,000 (`rulebook.maxListedChars`). */
  maxListedChars?: number;
  /** Rules auto-attached to matching files (their list entry says so); default: none marked. */
  attach?: readonly Rule[];
}

/** The rendered rules text and what did not fit. */
export interface RenderedRules {
  text: string;
  /** Rules left out of the `# Rules` list by `maxListedChars`. */
  omitted: Rule[];
}

function listEntry(rule: Rule, note?: string): string {
  const lines = [`<rule name="${escapeXml(rule.name)}">`];
  if (rule.description) {
    const d = rule.description;
    const shown = d.length > MAX_LISTED_DESCRIPTION ? `${d.slice(0, MAX_LISTED_DESCRIPTION - 3)}...` : d;
    lines.push(`<description>${escapeXml(shown)}</description>`);
  }
  for (const glob of rule.globs ?? []) lines.push(`<glob>${escapeXml(glob)}</glob>`);
  if (note) lines.push(`<note>${escapeXml(note)}</note>`);
  lines.push("</rule>");
  return lines.join("\n");
}

/**
 * The text of rulebook's system prompt section: always-apply rule contents first, then a
 * `# Rules` section listing the rules the model can read on demand. Empty when there is nothing
 * to say. Built once per session from the buckets, so the prompt is stable turn to turn (cache-friendly).
 */
export function renderRulesPrompt(buckets: RuleBuckets, options: RenderOptions): string {
  return renderRules(buckets, options).text;
}

/** `renderRulesPrompt`, plus the rules the list had no room for (the caller warns about them). */
export function renderRules(buckets: RuleBuckets, options: RenderOptions): RenderedRules {
  const parts: string[] = [];
  if (buckets.alwaysApply.length) {
    const bodies = buckets.alwaysApply.map((rule) => `<rule name="${escapeXml(rule.name)}">\n${rule.content}\n</rule>`);
    parts.push(["# Always-apply rules", "", "Follow these rules at all times.", "", bodies.join("\n\n")].join("\n"));
  }
  const attach = new Set(options.attach ?? []);
  const ATTACHED = "attached automatically when you read or edit a matching file";
  const listed: { rule: Rule; note?: string }[] = [];
  for (const rule of buckets.rulebook) listed.push(attach.has(rule) ? { rule, note: ATTACHED } : { rule });
  if (options.globAttach) for (const rule of buckets.glob) listed.push({ rule, note: ATTACHED });
  if (!options.ttsrActive) {
    for (const rule of buckets.ttsr)
      listed.push({ rule, note: "stream rule; read it before writing code it may concern" });
  }
  const cap = options.maxListedChars ?? 30_000;
  const entries: string[] = [];
  const omitted: Rule[] = [];
  let size = 0;
  for (const { rule, note } of listed) {
    const entry = listEntry(rule, note);
    if (omitted.length || size + entry.length + 1 > cap) omitted.push(rule);
    else {
      entries.push(entry);
      size += entry.length + 1;
    }
  }
  if (listed.length) {
    const section = [
      "# Rules",
      "",
      `Read a rule with the ${options.toolName} tool (its name, or rule://<name>) when your task matches its description or globs, before you act.`,
      "",
      "<rules>",
      ...(entries.length ? [entries.join("\n")] : []),
      "</rules>",
    ];
    if (omitted.length) {
      section.push(
        "",
        `${omitted.length} more rule(s) are not listed: the list is capped at ${cap} characters (rulebook.maxListedChars).`,
      );
    }
    parts.push(section.join("\n"));
  }
  return { text: parts.join("\n\n"), omitted };
}

/**
 * Append the rules text to a system prompt (unchanged when there is nothing to add): for a prompt another extension
 * replaced whole, where pi renders no sections.
 */
export function appendToSystemPrompt(systemPrompt: string, rulesText: string): string {
  if (!rulesText) return systemPrompt;
  return `${systemPrompt.replace(/\s+$/, "")}\n\n${rulesText}\n`;
}
