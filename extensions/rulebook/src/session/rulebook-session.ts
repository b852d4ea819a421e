import type * as Pi from "@earendil-works/pi-coding-agent";
import { readSessionEntries, sessionBranch, writeSessionEntry } from "@pi-rails/agent-core/kit";
import { attachmentFor, FILE_TOOLS, toCwdRelative } from "../attach/match.ts";
import { doctorReport, formatDoctor } from "../cli/report.ts";
import { streamConditionProblem } from "../conditions/stream.ts";
import { isTtsrStatusPayload, ttsrSkippedRules } from "../handoff/ttsr.ts";
import { appendToSystemPrompt, PROMPT_SECTION } from "../prompt/render.ts";
import { sessionLoadWarnings } from "../report/messages.ts";
import type { Rule } from "../rule.ts";
import { READ_RULE_TOOL } from "../tools/read-rule.ts";
import { ATTACHED_ENTRY } from "./entries.ts";
import { type RuleView, readSessionRules, ruleView, type SessionRules, type TtsrView } from "./rules.ts";
import { SessionWarnings } from "./warnings.ts";

/** One session's rules and the ones auto-attached on its current branch. */
interface SessionState extends SessionRules {
  attached: Set<string>;
  /** Derived from the rules and pi-ttsr's status; rebuilt when either changes. */
  view?: RuleView;
}

/** The rules attached on the branch `ctx` is on: an attachment on another branch was never seen by this one. */
const attachedOnBranch = (ctx: Pi.ExtensionContext) =>
  new Set(readSessionEntries(sessionBranch(ctx.sessionManager), ATTACHED_ENTRY).flatMap((entry) => entry.names));

/**
 * rulebook in one pi session: discovers the rules once per session start (never per turn), puts them in pi's
 * prompt, attaches glob rules to file tool results, answers `read_rule` and `/rulebook`, and says its warnings once.
 * It follows pi-ttsr's status on the event bus: while pi-ttsr is active, stream rules are left to it.
 */
export class RulebookSession {
  readonly #warnings: SessionWarnings;
  #ttsr: TtsrView = { ttsrActive: false, streamProblem: streamConditionProblem };
  #state: SessionState | undefined;

  constructor(private readonly pi: Pi.ExtensionAPI) {
    this.#warnings = new SessionWarnings(pi);
  }

  /** pi-ttsr's status: whether it is active, and the rules it skipped with its reasons (its word decides those). */
  ttsrStatus(payload: unknown): void {
    if (!isTtsrStatusPayload(payload)) return;
    const skipped = ttsrSkippedRules(payload);
    this.#ttsr = { ttsrActive: payload.active, streamProblem: (r) => skipped.get(r.name) ?? streamConditionProblem(r) };
    if (this.#state) this.#state.view = undefined;
  }

  /** A session starts (a /reload too: a new extension instance): its rules are discovered, their warnings said. */
  async start(ctx: Pi.ExtensionContext): Promise<void> {
    this.#state = await this.#load(ctx);
    this.#warnings.say(ctx, sessionLoadWarnings(this.#state.result));
  }

  /** `/tree` moved to another branch: the rules attached are the ones its model saw. */
  branchChanged(ctx: Pi.ExtensionContext): void {
    if (this.#state) this.#state.attached = attachedOnBranch(ctx);
  }

  /** The rules `read_rule` may return now. */
  readable(): readonly Rule[] {
    return this.#state ? this.#view(this.#state).buckets.readable : [];
  }

  /** `/rulebook`: where each rule came from, its bucket, and why rules were shadowed or skipped. */
  async doctor(ctx: Pi.ExtensionContext): Promise<void> {
    const s = await this.#ensure(ctx);
    ctx.ui.notify(formatDoctor(doctorReport(s.result, s.settings, this.#ttsr)), "info");
  }

  /**
   * Every run, whether a prompt or a custom message started it (pi 1.6 fires this for both). The rules are one named
   * section of pi's structured prompt: pi sends it once and patches it only when it changes, so the prompt stays
   * byte-stable turn to turn and another extension's sections and tool changes keep pi's incremental updates.
   */
  async beforeAgentStart(
    event: Pi.BeforeAgentStartEvent,
    ctx: Pi.ExtensionContext,
  ): Promise<Pi.BeforeAgentStartEventResult | undefined> {
    const s = await this.#ensure(ctx);
    const v = this.#view(s);
    // the same words doctor uses for the same files (report/messages.ts)
    this.#warnings.say(ctx, [...sessionLoadWarnings(s.result), ...v.warnings]);
    if (!v.promptText) return undefined;
    const options = event.systemPromptOptions;
    // an earlier handler replaced the whole prompt: sections are no longer rendered, so append to its text
    if (options.forceSystemPrompt !== undefined)
      return { systemPrompt: appendToSystemPrompt(event.systemPrompt, v.promptText) };
    options.sections[PROMPT_SECTION] = v.promptText;
    return undefined;
  }

  /** A read, edit or write of a file the model asked for: the glob rules it matches, not attached yet, go with it. */
  toolResult(event: Pi.ToolResultEvent, ctx: Pi.ExtensionContext): Pi.ToolResultEventResult | undefined {
    const s = this.#state;
    if (!s?.settings.globAttach || event.isError || !FILE_TOOLS.has(event.toolName)) return undefined;
    // a call another tool made (a codemode script): its result reaches that tool, not the model, so a rule attached
    // here could be recorded as attached without the model seeing it; the model's own read of the file attaches it
    if (event.parentToolCallId !== undefined) return undefined;
    const path = (event.input as { path?: unknown }).path;
    const rel = typeof path === "string" ? toCwdRelative(ctx.cwd, path) : undefined;
    if (!rel) return undefined;
    const { attachBudgetChars } = s.settings;
    const attachment = attachmentFor(this.#view(s).matchers, rel, s.attached, attachBudgetChars, READ_RULE_TOOL);
    if (!attachment) return undefined;
    // one tool result gets at most attachBudgetChars of rules; the rest are named for read_rule
    const names = attachment.attached.map((r) => r.name);
    for (const name of names) s.attached.add(name);
    if (names.length) writeSessionEntry(this.pi, ATTACHED_ENTRY, { names, path: rel });
    return { content: [...event.content, { type: "text", text: attachment.text }] };
  }

  async #load(ctx: Pi.ExtensionContext): Promise<SessionState> {
    return { ...(await readSessionRules(ctx.cwd, ctx.isProjectTrusted())), attached: attachedOnBranch(ctx) };
  }

  /** The rules, read again when the folder or pi's trust changed since (the same session: what was said stays said). */
  async #ensure(ctx: Pi.ExtensionContext): Promise<SessionState> {
    const s = this.#state;
    if (s && s.cwd === ctx.cwd && s.trusted === ctx.isProjectTrusted()) return s;
    this.#state = await this.#load(ctx);
    return this.#state;
  }

  #view(s: SessionState): RuleView {
    s.view ??= ruleView(s, this.#ttsr);
    return s.view;
  }
}
