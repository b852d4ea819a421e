import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
  defineSessionEntry,
  homeDir,
  readSessionEntries,
  resolveAgentDir,
  writeSessionEntry,
} from "@pi-rails/agent-core/kit";
import {
  compileGlobMatchers,
  FILE_TOOLS,
  type GlobMatcher,
  planAttachments,
  rankMatches,
  renderAttachment,
  renderOmitted,
  toCwdRelative,
} from "./attach/match.ts";
import { bucketRules, type RuleBuckets } from "./buckets/buckets.ts";
import { doctorReport, formatDoctor } from "./cli/report.ts";
import { streamConditionProblem } from "./conditions/stream.ts";
import { loadRules } from "./discovery/load.ts";
import { isTtsrStatusPayload, TTSR_STATUS_EVENT, ttsrSkippedRules } from "./handoff/ttsr.ts";
import { stripControl } from "./prompt/escape.ts";
import { appendToSystemPrompt, renderRules } from "./prompt/render.ts";
import { sessionLoadWarnings } from "./report/messages.ts";
import type { Rule, RuleLoadResult } from "./rule.ts";
import { readRulebookSettings } from "./settings/read.ts";
import type { RulebookSettings } from "./settings/schema.ts";
import { READ_RULE_TOOL, registerReadRuleTool } from "./tools/read-rule.ts";

/**
 * The section of pi's structured system prompt that holds the rules; pi renders it as `<rulebook>...</rulebook>`
 * after its own sections.
 */
export const PROMPT_SECTION = "rulebook";

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined;

/** Which rules were auto-attached (to which file), so a resumed session does not attach them again. */
export const ATTACHED_ENTRY = defineSessionEntry("rulebook:attached", (data) => {
  const { names, path } = (data ?? {}) as { names?: unknown; path?: unknown };
  const list = strings(names);
  return list && { names: list, path: typeof path === "string" ? path : "" };
});
/** The warnings shown to the user (not sent to the model): what a session said, readable from its file. */
export const WARNINGS_ENTRY = defineSessionEntry("rulebook:warnings", (data) => {
  const messages = strings((data as { messages?: unknown } | null | undefined)?.messages);
  return messages && { messages };
});

interface SessionState {
  cwd: string;
  /** pi's project trust when the rules were read: project settings count only in a trusted project. */
  trusted: boolean;
  settings: RulebookSettings;
  result: RuleLoadResult;
  attached: Set<string>;
  shown: Set<string>;
  /** Derived from the rules and the TTSR status; rebuilt when either changes. */
  view?: {
    buckets: RuleBuckets;
    promptText: string;
    matchers: GlobMatcher[];
    /** Delivery warnings: stream rules without pi-ttsr, rules left out of the capped list. */
    warnings: string[];
  };
}

/**
 * The rulebook extension, with the real home and pi's agent dir. Rules are discovered once per session start,
 * never per turn.
 */
export default function rulebook(pi: ExtensionAPI): void {
  let ttsrActive = false;
  /** The rules the loaded pi-ttsr said it skipped, with its reasons: its word decides for those. */
  let ttsrSkipped = new Map<string, string>();
  let state: SessionState | undefined;

  pi.events.on(TTSR_STATUS_EVENT, (payload) => {
    if (!isTtsrStatusPayload(payload)) return;
    ttsrActive = payload.active;
    ttsrSkipped = ttsrSkippedRules(payload);
    if (state) state.view = undefined;
  });
  const streamProblem = (rule: Rule) => ttsrSkipped.get(rule.name) ?? streamConditionProblem(rule);

  const load = async (ctx: ExtensionContext): Promise<SessionState> => {
    const home = homeDir();
    const agentDir = resolveAgentDir();
    const trusted = ctx.isProjectTrusted();
    const { settings, errors, ttsrDisabledRules } = await readRulebookSettings(ctx.cwd, agentDir, {
      projectTrusted: trusted,
    });
    let result: RuleLoadResult;
    try {
      result = await loadRules({ cwd: ctx.cwd, home, agentDir, settings, ttsrDisabledRules });
    } catch (error) {
      // loadRules reports bad files instead of throwing; this is the last line so pi never loses a session to us
      result = {
        rules: [],
        shadowed: [],
        skipped: [],
        warnings: [{ message: `rule discovery failed: ${(error as Error).message}` }],
        providers: [],
        stats: { files: 0, cacheHits: 0, ms: 0 },
      };
    }
    result.warnings.unshift(...errors);
    const entries = readSessionEntries(ctx.sessionManager.getEntries(), ATTACHED_ENTRY);
    const attached = new Set(entries.flatMap((entry) => entry.names));
    return { cwd: ctx.cwd, trusted, settings, result, attached, shown: new Set() };
  };

  const ensure = async (ctx: ExtensionContext): Promise<SessionState> => {
    if (!state || state.cwd !== ctx.cwd || state.trusted !== ctx.isProjectTrusted()) {
      const shown = state?.shown;
      state = await load(ctx);
      // the same session: a warning already shown is not shown again after a trust change
      if (shown && state.cwd === ctx.cwd) state.shown = shown;
    }
    return state;
  };

  const view = (s: SessionState) => {
    if (!s.view) {
      const buckets = bucketRules(s.result.rules, { ttsrActive, globAttach: s.settings.globAttach, streamProblem });
      const rendered = renderRules(buckets, {
        ttsrActive,
        globAttach: s.settings.globAttach,
        toolName: READ_RULE_TOOL,
        maxListedChars: s.settings.maxListedChars,
        attach: buckets.attach,
      });
      const warnings = [...buckets.warnings];
      if (rendered.omitted.length) {
        warnings.push(
          `${rendered.omitted.length} rule(s) are not listed in the system prompt: the list is capped at ${s.settings.maxListedChars} characters (rulebook.maxListedChars); they stay readable with read_rule`,
        );
      }
      s.view = {
        buckets,
        promptText: rendered.text,
        matchers: compileGlobMatchers(buckets.attach),
        warnings,
      };
    }
    return s.view;
  };

  /** Show each warning once per session: a notification with UI, stderr without. */
  const showWarnings = (s: SessionState, ctx: ExtensionContext, messages: string[]) => {
    const fresh = messages.filter((m) => !s.shown.has(m));
    if (!fresh.length) return;
    for (const m of fresh) s.shown.add(m);
    const head = `rulebook: ${fresh.length} warning(s)`;
    const body = fresh.slice(0, 8).map((m) => `- ${m}`);
    if (fresh.length > 8) body.push(`- ... and ${fresh.length - 8} more: run /rulebook or \`rulebook doctor\``);
    // file names can carry ESC sequences: never pass them to the terminal
    const text = stripControl([head, ...body].join("\n")).replace(/\r/g, "");
    if (ctx.hasUI) ctx.ui.notify(text, "warning");
    else process.stderr.write(`${text}\n`);
    writeSessionEntry(pi, WARNINGS_ENTRY, { messages: fresh });
  };

  registerReadRuleTool(pi, () => (state ? view(state).buckets.readable : []));

  pi.registerCommand("rulebook", {
    description: "Show where each rule came from, its bucket, and why rules were shadowed or skipped",
    handler: async (_args, ctx) => {
      const s = await ensure(ctx);
      ctx.ui.notify(formatDoctor(doctorReport(s.result, s.settings, { ttsrActive, streamProblem })), "info");
    },
  });

  pi.on("session_start", async (event, ctx) => {
    state = await load(ctx);
    // a /reload is the same session: what it already said (its warnings entries) is not said again; a file broken
    // since is new, and said once
    if (event.reason === "reload") {
      const said = readSessionEntries(ctx.sessionManager.getEntries(), WARNINGS_ENTRY).flatMap((e) => e.messages);
      state.shown = new Set(said);
    }
    showWarnings(state, ctx, sessionLoadWarnings(state.result));
  });

  // Every run, whether a prompt or a custom message started it (pi 1.6 fires this for both). The rules are one named
  // section of pi's structured prompt: pi sends it once and patches it only when it changes, so the prompt stays
  // byte-stable turn to turn and another extension's sections and tool changes keep pi's incremental updates.
  pi.on("before_agent_start", async (event, ctx) => {
    const s = await ensure(ctx);
    const v = view(s);
    // the same words doctor uses for the same files (report/messages.ts)
    showWarnings(s, ctx, [...sessionLoadWarnings(s.result), ...v.warnings]);
    if (!v.promptText) return undefined;
    const options = event.systemPromptOptions;
    // an earlier handler replaced the whole prompt: sections are no longer rendered, so append to its text
    if (options.forceSystemPrompt !== undefined)
      return { systemPrompt: appendToSystemPrompt(event.systemPrompt, v.promptText) };
    options.sections[PROMPT_SECTION] = v.promptText;
    return undefined;
  });

  pi.on("tool_result", async (event, ctx) => {
    const s = state;
    if (!s?.settings.globAttach || event.isError || !FILE_TOOLS.has(event.toolName)) return undefined;
    // a call another tool made (a codemode script): its result reaches that tool, not the model, so a rule attached
    // here could be recorded as attached without the model seeing it; the model's own read of the file attaches it
    if (event.parentToolCallId !== undefined) return undefined;
    const path = (event.input as { path?: unknown }).path;
    if (typeof path !== "string") return undefined;
    const rel = toCwdRelative(ctx.cwd, path);
    if (!rel) return undefined;
    const fresh = rankMatches(view(s).matchers, rel).filter((m) => !s.attached.has(m.rule.name));
    if (!fresh.length) return undefined;
    // one tool result gets at most attachBudgetChars of rules; the rest are named for read_rule
    const budget = s.settings.attachBudgetChars;
    const plan = planAttachments(fresh, budget, rel);
    for (const r of plan.attached) s.attached.add(r.name);
    if (plan.attached.length) {
      writeSessionEntry(pi, ATTACHED_ENTRY, { names: plan.attached.map((r) => r.name), path: rel });
    }
    const blocks: string[] = plan.attached.map((r: Rule) => renderAttachment(r, rel));
    if (plan.omitted.length) blocks.push(renderOmitted(plan.omitted, rel, budget, READ_RULE_TOOL));
    return { content: [...event.content, { type: "text", text: `\n\n${blocks.join("\n\n")}` }] };
  });
}
