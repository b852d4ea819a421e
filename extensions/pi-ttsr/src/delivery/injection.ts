import { defineSessionEntry, type StreamRetry, streamRetry, type TtsrTriggeredPayload } from "@pi-rails/agent-core/kit";
import type { RuleMatch } from "../manager/ttsr-manager.ts";
import type { TtsrRule } from "../rules/types.ts";
import type { TtsrSettings } from "../settings/schema.ts";
import { dedupeRules, renderInterrupt, renderReminder } from "./templates.ts";

/** customType of the hidden message the model sees (interrupt retry and prose follow-up). */
export const INJECTION_MESSAGE_TYPE = "ttsr:injection";

export type DeliveryKind = TtsrTriggeredPayload["kind"];

/** Kind of a persisted entry: a delivery, or `revoked` when the loop's abort cap dropped an interrupt's retry. */
export type InjectionEntryKind = DeliveryKind | "revoked";

/** Persisted with `pi.appendEntry`: enough to restore the repeat policy on resume. */
export interface InjectionEntryData {
  rules: string[];
  kind: InjectionEntryKind;
  /** Completed turns at injection time. */
  turn: number;
  toolCallId?: string;
}

/**
 * The `ttsr:injection` entries that record which rules were injected, read back at session start so a resumed
 * session keeps its repeat policy (also as earlier versions spelled them, `ttsr-injection`).
 */
export const INJECTION_ENTRY = defineSessionEntry<InjectionEntryData>(
  "ttsr:injection",
  (data) =>
    Array.isArray((data as Partial<InjectionEntryData> | undefined)?.rules) ? (data as InjectionEntryData) : undefined,
  { formerly: ["ttsr-injection"] },
);
/** customType of the session entry that records which rules were injected. */
export const INJECTION_ENTRY_TYPE = INJECTION_ENTRY.customType;

export function rulesOf(matches: readonly RuleMatch[]): TtsrRule[] {
  return dedupeRules(matches.map((m) => m.rule));
}

/**
 * The `retry` of a stream_text abort (agent-core's `streamRetry`: pi has no type or wording of its own): one hidden
 * `ttsr:injection` message carrying every matched rule, and what the session records of the aborted attempt.
 */
export function interruptRetry(
  matches: readonly RuleMatch[],
  settings: Pick<TtsrSettings, "contextMode">,
): StreamRetry & { details: { rules: string[] } } {
  const rules = rulesOf(matches);
  const names = rules.map((r) => r.name);
  return {
    ...streamRetry(renderInterrupt(rules, settings.contextMode), {
      customType: INJECTION_MESSAGE_TYPE,
      explanation: abortedAttemptExplanation(names),
      keepPartial: settings.contextMode === "keep",
    }),
    details: { rules: names },
  };
}

/** What the session file says of an interrupted attempt it keeps for its usage (its `errorMessage`). */
export function abortedAttemptExplanation(ruleNames: readonly string[]): string {
  const rules = `${ruleNames.length === 1 ? "rule" : "rules"} ${ruleNames.join(", ")}`;
  return `Interrupted by pi-ttsr (${rules}) and retried; kept for its usage only`;
}

/** The hidden follow-up sent after a successful message whose prose matched non-interrupting rules. */
export function followUpMessage(matches: readonly RuleMatch[]) {
  const rules = rulesOf(matches);
  return {
    customType: INJECTION_MESSAGE_TYPE,
    content: renderReminder(rules, "prose"),
    display: false,
    details: { rules: rules.map((r) => r.name) },
  };
}

/** The tool result with the reminder prepended as its own leading text block; the tool's content is kept verbatim. */
export function withToolReminder<T>(
  matches: readonly RuleMatch[],
  content: readonly T[],
): Array<T | { type: "text"; text: string }> {
  return [{ type: "text", text: renderReminder(rulesOf(matches), "tool") }, ...content];
}

export function triggeredPayload(matches: readonly RuleMatch[], kind: DeliveryKind): TtsrTriggeredPayload {
  const rules = rulesOf(matches).map((r) => ({
    name: r.name,
    path: r.path,
    content: r.content,
    ...(r.description ? { description: r.description } : {}),
  }));
  const first = matches[0];
  return {
    rules,
    kind,
    source: first?.source ?? "text",
    ...(first?.toolCallId ? { toolCallId: first.toolCallId } : {}),
  };
}

/** A one-line notice for interactive mode. */
export function noticeText(matches: readonly RuleMatch[], kind: DeliveryKind): string {
  const names = rulesOf(matches).map((r) => r.name);
  const how = {
    interrupt: "interrupted the response and retried with the rule",
    "follow-up": "the rule follows the message",
    "tool-reminder": "the rule was added to the tool result",
    "tool-block": "the tool call was blocked",
  }[kind];
  return `TTSR: rule ${names.join(", ")} fired (${how})`;
}
