import type {
  ExtensionAPI,
  ExtensionContext,
  ExtensionEvent,
  ToolResultEventResult,
} from "@earendil-works/pi-coding-agent";
import {
  emitEvent,
  SessionNotices,
  TTSR_MATCHED_EVENT,
  TTSR_TRIGGERED_EVENT,
  writeSessionEntry,
} from "@pi-rails/agent-core/kit";
import {
  type DeliveryKind,
  INJECTION_ENTRY,
  noticeText,
  rulesOf,
  triggeredPayload,
  withToolReminder,
} from "../delivery/injection.ts";
import type { InterruptCostTally } from "../delivery/interrupt-cost.ts";
import type { DeltaInput, RuleMatch, TtsrManager } from "../manager/ttsr-manager.ts";

type ToolResultEvent = Extract<ExtensionEvent, { type: "tool_result" }>;

/** pi-ttsr's notices, by the kit's one rule: each said once per session, and a /reload repeats none. */
const notices = new SessionNotices("pi-ttsr");

/** Says `message` once in this session (a notice in interactive mode, else a line on stderr). */
export const tell = (ctx: ExtensionContext, message: string) => notices.once(ctx, message, message);

/**
 * What every delivery shares: feed a delta to the manager, and once a match's way to the model is chosen, record the
 * delivery (repeat policy, session entry, event, notice); reminders on tool results work the same on either pi.
 */
export class DeliveryCore {
  constructor(
    readonly pi: ExtensionAPI,
    readonly manager: TtsrManager,
    /** What this session's interrupts cost so far (restored from the branch at session start). */
    public cost: InterruptCostTally,
  ) {}

  /** One delta: the matches that ask to interrupt now (empty when none, or when matching failed). */
  check(ctx: ExtensionContext, delta: DeltaInput): RuleMatch[] {
    try {
      const decision = this.manager.checkDelta(delta);
      this.matched(decision.deferred);
      return decision.interrupt;
    } catch (error) {
      tell(ctx, `matching failed on a streamed delta (it was let through): ${(error as Error).message}`);
      return [];
    }
  }

  /** The response ended: what only its end completes (a trailing `\b`, `$`) is recorded, to go out as reminders. */
  settle(): void {
    this.matched(this.manager.finishStreams().deferred);
  }

  deliver(ctx: ExtensionContext, matches: readonly RuleMatch[], kind: DeliveryKind, toolCallId?: string): void {
    if (matches.length === 0) return;
    const names = rulesOf(matches).map((r) => r.name);
    this.manager.markInjected(names);
    const turn = this.manager.completedTurns;
    writeSessionEntry(this.pi, INJECTION_ENTRY, { rules: names, kind, turn, ...(toolCallId ? { toolCallId } : {}) });
    emitEvent(this.pi.events, TTSR_TRIGGERED_EVENT, triggeredPayload(matches, kind));
    // An interrupt's notice (naming the rules) is shown once it took effect (the stream hook's `retried` outcome).
    if (ctx.hasUI && kind !== "interrupt") ctx.ui.notify(noticeText(matches, kind), "info");
  }

  /**
   * A tool call produced its result: the reminders of the rules its arguments matched go first. The tool's
   * `structuredContent` (what scripts such as codemode's get instead of the text) is handed back unchanged: pi 1.6
   * drops it when a handler replaces `content` alone, and the reminder is for the model, not for them.
   */
  toolResult(event: ToolResultEvent, ctx: ExtensionContext): ToolResultEventResult | undefined {
    const bucket = this.manager.takeToolBucket(event.toolCallId);
    if (bucket.length === 0) return undefined;
    this.deliver(ctx, bucket, "tool-reminder", event.toolCallId);
    const { structuredContent } = event;
    return {
      content: withToolReminder(bucket, event.content),
      ...(structuredContent === undefined ? {} : { structuredContent }),
    };
  }

  private matched(matches: readonly RuleMatch[]): void {
    if (matches.length === 0) return;
    emitEvent(this.pi.events, TTSR_MATCHED_EVENT, { rules: matches.map((m) => m.rule.name), deferred: true });
  }
}
