/**
 * pi adapter for TTSR: at session start it loads the rules and builds the manager; its stream hook (agent-core's,
 * on whichever pi runs) hands each delta to the manager. Matching and the repeat policy live in the manager, what is
 * injected in `delivery/`, and how a match reaches the model in `host/stream-hook.ts`.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
  emitEvent,
  formatSettingsIssue,
  type PiHostKind,
  readSessionEntries,
  registerStreamHook,
  resolveAgentDir,
  type StreamHook,
  sessionBranch,
  TTSR_STATUS_EVENT,
} from "@pi-rails/agent-core/kit";
import { piReportsSettingsIssue } from "@pi-rails/rulebook/discovery";
import { INJECTION_ENTRY } from "./delivery/injection.ts";
import {
  addInterrupt,
  COST_ENTRY,
  EMPTY_TALLY,
  interruptCostStatus,
  interruptCostText,
} from "./delivery/interrupt-cost.ts";
import { DeliveryCore, tell } from "./host/delivery.ts";
import { STOCK_PI_NOTICE, ttsrStreamHook } from "./host/stream-hook.ts";
import { buildRegistry } from "./manager/build-registry.ts";
import { completedTurns, countsAsTurn } from "./manager/completed-turns.ts";
import { TtsrManager } from "./manager/ttsr-manager.ts";
import { loadSessionRules } from "./rules/session-rules.ts";
import { formatIssue } from "./rules/types.ts";

/** Loads this session's settings and rules (saying once what is wrong) and restores what its branch recorded. */
async function startSession(pi: ExtensionAPI, ctx: ExtensionContext, host: PiHostKind): Promise<Session> {
  // What the settings and rule files say (from the start-up snapshot when none of them changed since the last start)
  const read = await loadSessionRules({
    cwd: ctx.cwd,
    agentDir: resolveAgentDir(),
    projectTrusted: ctx.isProjectTrusted(),
  });
  const { settings, loaded } = read;
  // a settings file pi cannot load (a trailing comma) is pi's to report: it says so itself (`ttsr list` still does)
  const settingsIssues = read.settingsIssues.filter((issue) => !piReportsSettingsIssue(issue));
  for (const issue of settingsIssues) tell(ctx, formatSettingsIssue(issue));
  if (read.failed !== undefined) tell(ctx, `loading rules failed, TTSR is off for this session: ${read.failed}`);
  // One bad rule disables only itself (buildRegistry isolates a rule whose compilation throws). Regex rules the
  // compile cache cannot answer start deferred, so a first start does not wait for their compile.
  const built = buildRegistry(loaded.rules, { defer: true });
  const manager = new TtsrManager(built.registry, { settings, cwd: ctx.cwd });
  // A rule suspended mid-session (its native matching went over its CPU-time budget) is said once.
  manager.registry.onIssue((issue) => tell(ctx, formatIssue(issue)));
  const ruleIssues = [...loaded.issues, ...built.issues, ...manager.registry.issues];
  for (const issue of ruleIssues) tell(ctx, formatIssue(issue));
  const branch = sessionBranch(ctx.sessionManager);
  manager.setCompletedTurns(completedTurns(branch));
  manager.restoreInjected(readSessionEntries(branch, INJECTION_ENTRY));
  const cost = readSessionEntries(branch, COST_ENTRY).reduce((tally, e) => addInterrupt(tally, e.usage), EMPTY_TALLY);
  const costStatus = interruptCostStatus(cost);
  if (ctx.hasUI && costStatus) ctx.ui.setStatus("pi-ttsr", costStatus);
  const core = new DeliveryCore(pi, manager, cost);
  const patched = host === "patched";
  if (manager.active && !patched) tell(ctx, STOCK_PI_NOTICE);
  // rulebook reads `skipped` so that `/rulebook` calls these rules "not delivered", with pi-ttsr's reasons
  const compileFailed = built.issues.flatMap((i) =>
    i.rule ? [{ name: i.rule, path: i.path, reason: i.message }] : [],
  );
  emitEvent(pi.events, TTSR_STATUS_EVENT, {
    active: settings.enabled,
    patched,
    rules: manager.registry.rules.map((r) => r.rule.name),
    skipped: [...loaded.skipped, ...manager.registry.skipped, ...compileFailed],
    warnings: [...settingsIssues.map(formatSettingsIssue), ...ruleIssues.map(formatIssue)],
  });
  return { core, hook: ttsrStreamHook(core) };
}

/** A session's delivery core and the stream hook built on it. */
interface Session {
  core: DeliveryCore;
  hook: StreamHook;
}

export default function ttsrExtension(pi: ExtensionAPI): void {
  let session: Session | undefined;
  const streamHook = registerStreamHook(pi, () => session?.hook);
  pi.on("session_start", async (_event, ctx) => {
    session = await startSession(pi, ctx, streamHook.kind);
  });

  pi.on("tool_result", (event, ctx) => session?.core.toolResult(event, ctx));
  // the user reads the answer: compile the rules that started deferred, in the background
  pi.on("agent_end", () => session?.core.manager.registry.compileDeferredLater());
  // stock pi ends a turn with the emptied response of an interrupt: not a turn of the conversation.
  pi.on("turn_end", (event) => {
    if (countsAsTurn(event.message)) session?.core.manager.onTurnEnd();
  });

  pi.registerCommand("ttsr", {
    description: "TTSR: list the rules watching the stream, and their warnings",
    handler: async (_args, ctx) => {
      if (!session) return;
      const { manager, cost } = session.core;
      const lines = manager.registry.rules.map((r) => {
        const f = manager.firings(r.rule.name);
        return `${r.rule.name}  ${r.rule.conditions.map((c) => `/${c.source}/${c.flags}`).join(" | ")}  fired ${f?.count ?? 0}x`;
      });
      for (const s of manager.registry.skipped) lines.push(`skipped ${s.name} (${s.path}): ${s.reason}`);
      const costText = interruptCostText(cost);
      if (costText) lines.push(costText);
      ctx.ui.notify(lines.length > 0 ? lines.join("\n") : "TTSR: no rules", "info");
    },
  });
}
