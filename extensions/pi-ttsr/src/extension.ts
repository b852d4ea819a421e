/**
 * pi adapter for TTSR: loads rules at session start, feeds every streamed delta to the TtsrManager and
 * delivers its decisions through pi. Matching and repeat policy live in the manager, what is injected in the
 * delivery modules; this file still chooses between the patched host (abort and retry in the loop) and stock pi
 * (follow-up after the turn) in its handlers.
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import {
  formatSettingsIssue,
  resolveAgentDir,
  TTSR_COST_EVENT,
  TTSR_MATCHED_EVENT,
  TTSR_STATUS_EVENT,
} from "@pi-rails/agent-core/kit";
import {
  type DeliveryKind,
  followUpMessage,
  INJECTION_ENTRY_TYPE,
  INJECTION_MESSAGE_TYPE,
  type InjectionEntryData,
  interruptRetry,
  noticeText,
  rulesOf,
  TRIGGERED_EVENT,
  triggeredPayload,
  withToolReminder,
} from "./delivery/injection.ts";
import {
  addInterrupt,
  EMPTY_TALLY,
  type InterruptCostTally,
  interruptCostStatus,
  interruptCostText,
  readAttemptUsage,
} from "./delivery/interrupt-cost.ts";
import { renderInterrupt } from "./delivery/templates.ts";
import { buildRegistry } from "./manager/build-registry.ts";
import { ResponseBoundary } from "./manager/response-boundary.ts";
import { type RuleMatch, TtsrManager } from "./manager/ttsr-manager.ts";
import { hasStreamTextHook } from "./patch.ts";
import { loadTtsrRules } from "./rules/load.ts";
import { formatIssue, type StreamSource } from "./rules/types.ts";
import { readTtsrSettings } from "./settings/read.ts";

/** The events pi-ttsr emits (defined once in the kit's contracts; the old names stay exported here). */
export const COST_EVENT = TTSR_COST_EVENT;
export const MATCHED_EVENT = TTSR_MATCHED_EVENT;
export { TTSR_STATUS_EVENT };

const STOCK_PI_NOTICE =
  "pi-ttsr: this pi has no stream_text hook (stock pi, without the pi-rails patch). Degraded: prose rules cannot " +
  "interrupt a response and are delivered as a hidden follow-up after it; interrupting tool rules block the tool " +
  "call before it runs; reminders on tool results work as usual.";

/** Session entry with the usage of one aborted attempt, so a resumed session keeps counting from its total. */
export const COST_ENTRY_TYPE = "ttsr-interrupt-cost";

/** Messages already shown in this process, so a warning is said once even across reloads. */
const SHOWN_KEY = Symbol.for("@pi-rails/pi-ttsr/shown");
const registry = globalThis as Record<symbol, unknown>;
if (!(registry[SHOWN_KEY] instanceof Set)) registry[SHOWN_KEY] = new Set<string>();
const shown = registry[SHOWN_KEY] as Set<string>;

function tell(ctx: ExtensionContext, message: string, level: "info" | "warning" = "warning"): void {
  if (shown.has(message)) return;
  shown.add(message);
  if (ctx.hasUI) ctx.ui.notify(message, level);
  else process.stderr.write(`${message}\n`);
}

function readInjectionEntries(ctx: ExtensionContext): InjectionEntryData[] {
  const out: InjectionEntryData[] = [];
  for (const entry of ctx.sessionManager.getBranch()) {
    if (entry.type !== "custom" || entry.customType !== INJECTION_ENTRY_TYPE) continue;
    const data = entry.data as Partial<InjectionEntryData> | undefined;
    if (data && Array.isArray(data.rules)) out.push(data as InjectionEntryData);
  }
  return out;
}

/** The tally of the interrupts this session's branch already paid for (entries written at each abort). */
function restoreCost(ctx: ExtensionContext): InterruptCostTally {
  let tally = EMPTY_TALLY;
  for (const entry of ctx.sessionManager.getBranch()) {
    if (entry.type !== "custom" || entry.customType !== COST_ENTRY_TYPE) continue;
    const usage = readAttemptUsage((entry.data as { usage?: unknown } | undefined)?.usage);
    if (usage) tally = addInterrupt(tally, usage);
  }
  return tally;
}

function completedTurns(ctx: ExtensionContext): number {
  let turns = 0;
  for (const entry of ctx.sessionManager.getBranch()) {
    if (entry.type === "message" && entry.message.role === "assistant") turns++;
  }
  return turns;
}

export default function ttsrExtension(pi: ExtensionAPI): void {
  let manager: TtsrManager | undefined;
  let patched = false;
  let cost: InterruptCostTally = EMPTY_TALLY;
  /** Stock pi: tool calls to block at `tool_call`, with the rules that matched their arguments. */
  const blocked = new Map<string, RuleMatch[]>();

  const deliver = (
    ctx: ExtensionContext | undefined,
    matches: RuleMatch[],
    kind: DeliveryKind,
    toolCallId?: string,
  ) => {
    if (!manager || matches.length === 0) return;
    const names = rulesOf(matches).map((r) => r.name);
    manager.markInjected(names);
    const data: InjectionEntryData = { rules: names, kind, turn: manager.completedTurns };
    if (toolCallId) data.toolCallId = toolCallId;
    pi.appendEntry(INJECTION_ENTRY_TYPE, data);
    pi.events.emit(TRIGGERED_EVENT, triggeredPayload(matches, kind));
    // Patched pi's interactive mode already shows a notice line naming the rules of an interrupt.
    if (ctx?.hasUI && !(patched && kind === "interrupt")) ctx.ui.notify(noticeText(matches, kind), "info");
  };

  pi.on("session_start", async (_event, ctx) => {
    patched = hasStreamTextHook();
    const agentDir = resolveAgentDir();
    const { settings, issues: settingsIssues } = await readTtsrSettings(ctx.cwd, agentDir);
    for (const issue of settingsIssues) tell(ctx, `pi-ttsr: ${formatSettingsIssue(issue)}`);
    let loaded: Awaited<ReturnType<typeof loadTtsrRules>> = { rules: [], issues: [], dropped: [] };
    if (settings.enabled) {
      try {
        loaded = await loadTtsrRules({ cwd: ctx.cwd, agentDir, settings });
      } catch (error) {
        tell(ctx, `pi-ttsr: loading rules failed, TTSR is off for this session: ${(error as Error).message}`);
      }
    }
    // One bad rule disables only itself (buildRegistry isolates a rule whose compilation throws).
    const built = buildRegistry(loaded.rules);
    manager = new TtsrManager(built.registry, { settings, cwd: ctx.cwd });
    // A rule suspended mid-session (its native matching went over the time budget) is said once.
    manager.registry.onIssue((issue) => tell(ctx, `pi-ttsr: ${formatIssue(issue)}`));
    const ruleIssues = [...loaded.issues, ...built.issues, ...manager.registry.issues];
    const warnings = [...settingsIssues.map(formatSettingsIssue), ...ruleIssues.map(formatIssue)];
    for (const issue of ruleIssues) tell(ctx, `pi-ttsr: ${formatIssue(issue)}`);
    manager.setCompletedTurns(completedTurns(ctx));
    manager.restoreInjected(readInjectionEntries(ctx));
    cost = restoreCost(ctx);
    const costStatus = interruptCostStatus(cost);
    if (ctx.hasUI && costStatus) ctx.ui.setStatus("pi-ttsr", costStatus);
    blocked.clear();
    if (manager.active && !patched) tell(ctx, STOCK_PI_NOTICE);
    pi.events.emit(TTSR_STATUS_EVENT, {
      active: settings.enabled,
      patched,
      rules: manager.registry.rules.map((r) => r.rule.name),
      warnings,
    });
  });

  /** One delta from either host path; returns the abort answer on patched pi. */
  const onDelta = (
    ctx: ExtensionContext,
    source: StreamSource,
    chunk: string,
    toolCall: { id: string; name: string } | undefined,
  ) => {
    if (!manager?.active) return undefined;
    let decision: ReturnType<TtsrManager["checkDelta"]>;
    try {
      decision = manager.checkDelta({ source, chunk, ...(toolCall ? { toolCall } : {}) });
    } catch (error) {
      tell(ctx, `pi-ttsr: matching failed, this stream is not checked further: ${(error as Error).message}`);
      return undefined;
    }
    if (decision.deferred.length > 0) {
      pi.events.emit(MATCHED_EVENT, { rules: decision.deferred.map((m) => m.rule.name), deferred: true });
    }
    if (decision.interrupt.length === 0) return undefined;
    if (patched) {
      const retry = interruptRetry(decision.interrupt, manager.settings);
      deliver(ctx, decision.interrupt, "interrupt");
      return { abort: true as const, retry };
    }
    // Stock pi: no abort-and-retry inside the loop. Prose waits for the end of the message; tool calls are blocked.
    const prose = decision.interrupt.filter((m) => m.source !== "tool");
    manager.queueProse(prose);
    for (const m of decision.interrupt) {
      if (m.source !== "tool" || !m.toolCallId) continue;
      const list = blocked.get(m.toolCallId) ?? [];
      list.push(m);
      blocked.set(m.toolCallId, list);
    }
    return undefined;
  };

  /** New responses are seen from inside the stream (message_start reaches extensions late). */
  const boundary = new ResponseBoundary();

  pi.on("stream_text", (event, ctx) => {
    if (!patched) return undefined; // stock detection wins: message_update carries the deltas then
    const fresh = event.accumulated.length === event.chunk.length;
    if (boundary.isNewResponse(event.attempt, event.contentIndex, fresh)) manager?.resetStreams();
    const source: StreamSource = event.source === "toolcall" ? "tool" : event.source;
    const toolCall = event.toolCall ? { id: event.toolCall.id, name: event.toolCall.name } : undefined;
    return onDelta(ctx, source, event.chunk, toolCall);
  });

  pi.on("message_update", (event, ctx) => {
    if (patched || !manager?.active) return;
    const e = event.assistantMessageEvent;
    if (e.type === "text_delta") onDelta(ctx, "text", e.delta, undefined);
    else if (e.type === "thinking_delta") onDelta(ctx, "thinking", e.delta, undefined);
    else if (e.type === "toolcall_delta") {
      const block = event.message.role === "assistant" ? event.message.content[e.contentIndex] : undefined;
      const id = block?.type === "toolCall" ? block.id : `index-${e.contentIndex}`;
      const name = block?.type === "toolCall" ? block.name : "";
      onDelta(ctx, "tool", e.delta, { id, name });
    }
  });

  pi.on("message_start", (event) => {
    if (!patched && event.message.role === "assistant") manager?.resetStreams();
  });

  // Patched pi: queued prose rules (and what only the end of the stream settled) are delivered at the next loop
  // seam, which the loop awaits: after the tools ran, or where the run would otherwise end (the loop continues).
  pi.on("checkpoint", (event, ctx) => {
    if (!patched || !manager?.active) return undefined;
    if (event.kind !== "post_tool_dispatch" && event.kind !== "iteration_end") return undefined;
    const settled = manager.finishStreams();
    if (settled.deferred.length > 0) {
      pi.events.emit(MATCHED_EVENT, { rules: settled.deferred.map((m) => m.rule.name), deferred: true });
    }
    const due = manager.takeProseQueue();
    if (due.length === 0) return undefined;
    deliver(ctx, due, "follow-up");
    return { messages: [{ ...followUpMessage(due), role: "custom" as const, timestamp: Date.now() }] };
  });

  pi.on("message_end", (event, ctx) => {
    if (!manager || event.message.role !== "assistant") return;
    const stopReason = event.message.stopReason;
    if (patched) {
      if (stopReason === "aborted" || stopReason === "error") manager.dropToolBuckets();
      return;
    }
    // Stock pi: no seam to wait at; the follow-up is queued for when the agent would stop (best effort).
    if (stopReason !== "aborted" && stopReason !== "error") {
      // What only the end of the response completes (a trailing `\b`, `$`): delivered as reminders.
      const settled = manager.finishStreams();
      if (settled.deferred.length > 0) {
        pi.events.emit(MATCHED_EVENT, { rules: settled.deferred.map((m) => m.rule.name), deferred: true });
      }
    }
    const due = manager.onMessageEnd(stopReason);
    if (event.message.stopReason === "aborted" || event.message.stopReason === "error") blocked.clear();
    if (due.length === 0) return;
    pi.sendMessage(followUpMessage(due), { deliverAs: "followUp", triggerTurn: true });
    deliver(ctx, due, "follow-up");
  });

  pi.on("tool_call", (event, ctx) => {
    const matches = blocked.get(event.toolCallId);
    if (!matches || !manager) return;
    blocked.delete(event.toolCallId);
    deliver(ctx, matches, "tool-block", event.toolCallId);
    return { block: true, reason: renderInterrupt(rulesOf(matches), "keep") };
  });

  pi.on("tool_result", (event, ctx) => {
    if (!manager) return;
    const bucket = manager.takeToolBucket(event.toolCallId);
    if (bucket.length === 0) return;
    deliver(ctx, bucket, "tool-reminder", event.toolCallId);
    return { content: withToolReminder(bucket, event.content) };
  });

  // Each interrupt was billed: count what the aborted attempt cost (when the patch reports its usage).
  pi.on("stream_abort", (event, ctx) => {
    if (!manager || event.retry?.customType !== INJECTION_MESSAGE_TYPE) return;
    const usage = readAttemptUsage((event as { usage?: unknown }).usage);
    cost = addInterrupt(cost, usage);
    if (!usage) return; // stock pi or an older patch: nothing known, nothing said
    pi.appendEntry(COST_ENTRY_TYPE, { usage });
    const text = interruptCostText(cost);
    pi.events.emit(COST_EVENT, { ...cost, text });
    if (ctx.hasUI && text) {
      ctx.ui.setStatus("pi-ttsr", interruptCostStatus(cost));
      ctx.ui.notify(`pi-ttsr: ${text}`, "info");
    }
  });

  // At the abort cap the loop ends the turn without sending the retry: those rules were not delivered.
  pi.on("stream_abort", (event) => {
    if (!manager || !event.capReached || event.retry?.customType !== INJECTION_MESSAGE_TYPE) return;
    const rules = (event.retry.details as { rules?: unknown } | undefined)?.rules;
    if (!Array.isArray(rules)) return;
    const names = rules.filter((r): r is string => typeof r === "string");
    manager.revokeInjected(names);
    pi.appendEntry(INJECTION_ENTRY_TYPE, { rules: names, kind: "revoked", turn: manager.completedTurns });
  });

  pi.on("turn_end", () => {
    manager?.onTurnEnd();
  });

  pi.registerCommand("ttsr", {
    description: "TTSR: list the rules watching the stream, and their warnings",
    handler: async (_args, ctx) => {
      if (!manager) return;
      const lines = manager.registry.rules.map((r) => {
        const f = manager!.firings(r.rule.name);
        return `${r.rule.name}  ${r.rule.conditions.map((c) => `/${c.source}/${c.flags}`).join(" | ")}  fired ${f?.count ?? 0}x`;
      });
      for (const s of manager.registry.skipped) lines.push(`skipped ${s.name} (${s.path}): ${s.reason}`);
      const costText = interruptCostText(cost);
      if (costText) lines.push(costText);
      ctx.ui.notify(lines.length > 0 ? lines.join("\n") : "TTSR: no rules", "info");
    },
  });
}
