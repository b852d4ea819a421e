import type { AgentToolResult, ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
  readSessionEntries,
  resolveAgentDir,
  SessionNotices,
  sessionBranch,
  writeSessionEntry,
} from "@pi-rails/agent-core/kit";
import { cacheRetention, decideTtl, type ResolvedTtl } from "../clock/ttl.ts";
import { chooseWarmOrPrune, type WarmingChoice, type WarmingFigures } from "../clock/warming.ts";
import { type RenderResult, SessionView } from "../engine/session-view.ts";
import type { UsageLike, ViewMessage } from "../model/messages.ts";
import { builderOf } from "../model/session-context.ts";
import { statusReport } from "../report/status.ts";
import { type RestoreParams, restoredContent, restoreNotes } from "../restore/restore.ts";
import { parsePinCommand } from "../settings/pin-command.ts";
import { defaultSettings, loadCacheTtlSettings, type SettingsIssue } from "../settings/settings.ts";
import { STATE_ENTRY, type StateEntry } from "../state/entries.ts";
import { modelKey, saidFile, ttlNoticeDue } from "../state/said.ts";

/** How long after a session change `prepare` waits: past pi's own start-up work, well before a user's first prompt. */
const PREPARE_DELAY_MS = 50;

/** pi's cache-warming refreshes since the last answer: its `usage` entries of kind `cache_warm` after it. */
function warmsSinceAnswer(sm: ExtensionContext["sessionManager"]): number {
  let warms = 0;
  for (let e = sm.getEntry(sm.getLeafId() ?? ""); e; e = e.parentId ? sm.getEntry(e.parentId) : undefined) {
    if (e.type === "message" && e.message.role === "assistant") break;
    if (e.type === "usage" && e.kind === "cache_warm") warms++;
  }
  return warms;
}

const stateOfBranch = (ctx: ExtensionContext) => readSessionEntries(sessionBranch(ctx.sessionManager), STATE_ENTRY);
/** The session's current context, built as pi builds it (what the next request starts from). */
const messagesOf = (ctx: ExtensionContext): ViewMessage[] => builderOf(sessionBranch(ctx.sessionManager)).messages();

/**
 * cache-ttl-view in one pi process: the view of the current session and what is said about it (settings issues,
 * "pruning is off" once per model), and what each of pi's events, the `context_restore` tool and `/cache-ttl` do to
 * them. The extension's entry only wires pi's events here, so every path through it is one method to read and test.
 */
export class CacheTtlSession {
  readonly #pi: ExtensionAPI;
  readonly #now: () => number;
  readonly #onRender?: ((result: RenderResult) => void) | undefined;
  /** The kit's one rule: each notice once per session, a `/reload` repeats none. */
  readonly #notices = new SessionNotices("cache-ttl-view");
  #view = new SessionView(defaultSettings());
  #issues: SettingsIssue[] = [];
  /** False while the settings' fields conflict: nothing new is pruned, and what was pruned before stays pruned. */
  #settingsValid = true;
  /** Per model, the reason this process last checked the said-file for (`undefined`: the TTL was known). */
  readonly #checked = new Map<string, string | undefined>();
  #preparing: NodeJS.Timeout | undefined;
  /**
   * Ids whose originals a `context_restore` call of the current turn appended: pi runs a turn's tool calls together,
   * so a second call for the same id does not see the first one's result in the session yet.
   */
  readonly #appending = new Set<string>();
  /** When pi last decided a refresh (this extension's clock), and how many it had sent since the last answer then. */
  #warmDecided: { at: number; warms: number } | undefined;

  constructor(pi: ExtensionAPI, now: () => number, onRender?: (result: RenderResult) => void) {
    [this.#pi, this.#now, this.#onRender] = [pi, now, onRender];
  }

  /** A session began (start, resume, `/new`, `/reload`, fork): its settings, its persisted state, a prepared pass. */
  start(ctx: ExtensionContext): void {
    // A refresh decided in the previous session is not this one's (its count of pi's refreshes is another branch's).
    this.#warmDecided = undefined;
    // pi 1.6 reads a project's settings only in a trusted project: so does the view.
    const loaded = loadCacheTtlSettings(ctx.cwd, undefined, { projectTrusted: ctx.isProjectTrusted() });
    this.#issues = loaded.issues;
    for (const p of this.#issues) this.#notices.once(ctx, `${p.file}:${p.key}`, `${p.file}: ${p.key}: ${p.message}`);
    // Conflicting fields turn pruning off, not the view: the blocks pruned before keep their bytes (the cached
    // prefix stays valid, and nothing pruned comes back at full size because of a typo).
    this.#settingsValid = loaded.valid;
    this.#view = new SessionView(loaded.settings, ctx.cwd);
    this.#view.load(stateOfBranch(ctx));
    this.#prepareSoon(ctx);
  }

  shutdown(): void {
    clearTimeout(this.#preparing);
  }

  compacted(ctx: ExtensionContext): void {
    this.#view.invalidate();
    this.#prepareSoon(ctx);
  }

  /** Another branch: its own prunes, pins and restores (never the prune set of the branch left behind). */
  branchChanged(ctx: ExtensionContext): void {
    this.#view.switchBranch(stateOfBranch(ctx));
    this.#prepareSoon(ctx);
  }

  /**
   * The view of one request's full transcript (`context_with_system`): `undefined` leaves pi's messages untouched
   * (the view is patched into them only at the very end, so a failure sends them unpruned).
   */
  render(messages: ViewMessage[], ctx: ExtensionContext): ViewMessage[] | undefined {
    clearTimeout(this.#preparing);
    this.#countWarm(ctx);
    this.#warmDecided = undefined;
    const ttl = this.#ttl(ctx);
    this.#tellTtl(ctx, ttl);
    let result: RenderResult;
    try {
      result = this.#view.render(messages, {
        now: this.#now(),
        ttlSeconds: ttl.seconds,
        ...(ctx.model?.api !== undefined ? { api: ctx.model.api } : {}),
      });
    } catch (error) {
      this.#notices.once(
        ctx,
        "render-error",
        `could not build the view, sending it unpruned: ${(error as Error).message}`,
      );
      return undefined;
    }
    this.#onRender?.(result);
    for (const entry of result.entries) this.#persist(entry);
    if (result.plan && ctx.hasUI) {
      const { ids, savedTokens } = result.plan;
      ctx.ui.notify(`cache-ttl-view: cache expired, pruned ${ids.length} blocks (~${savedTokens} tokens)`, "info");
    }
    return result.messages;
  }

  /** The request is on its way (its answer began): a prune it made is folded into the state (`SessionView.settle`). */
  requestSent(): void {
    this.#view.settle();
  }

  /** An answer's usage counters: evidence about how long the provider kept the cache (`observeUsage`). */
  messageEnded(message: { role: string; usage?: UsageLike }): void {
    if (message.role === "assistant") this.#persist(this.#view.observeUsage(message.usage));
  }

  agentEnded(): void {
    this.#persist(this.#view.touchEntry());
  }

  turnStarted(): void {
    this.#appending.clear();
  }

  /** `context_restore`: append the originals at the tail, or (`inPlace`) unprune them from the next request on. */
  restore(params: RestoreParams, ctx: ExtensionContext): AgentToolResult<unknown> {
    const branch = builderOf(sessionBranch(ctx.sessionManager));
    // Ids another call of this turn appends count as shown, for an in-place restore too: pi runs the turn's calls
    // together, and restoring in place what is appended at the tail would send the original twice.
    const ids = this.#view.originals(params.ids, branch.messages(), branch.history(), this.#appending);
    const { alreadyShown, notPruned, missing } = ids;
    if (ids.found.length + alreadyShown.length === 0 && notPruned.length === 0) {
      throw new Error(restoreNotes(ids).join(" "));
    }
    const restored = ids.found.map((f) => f.id);
    const details = { ids: restored, alreadyShown, notPruned, missing, inPlace: params.inPlace === true };
    if (!params.inPlace) {
      for (const id of restored) this.#appending.add(id);
      return { content: restoredContent(ids.found, restoreNotes(ids)), details };
    }
    // Only what is pruned and not shown in full at the tail: restoring an id twice, one never pruned, or one an
    // earlier restore appended (still in view there) changes nothing and says so: one copy is sent.
    if (restored.length > 0) this.#persist(this.#view.apply({ kind: "restore", at: this.#now(), ids: restored }));
    const lines = restored.length > 0 ? [`Restored in place from the next request on: ${restored.join(", ")}.`] : [];
    lines.push(...restoreNotes({ notPruned, alreadyShown, missing }));
    return { content: [{ type: "text", text: lines.join("\n") }], details };
  }

  /**
   * pi is about to refresh the prompt cache (`cache_warming_decision`): warm it, or let it expire and have the next
   * request prune, whichever is expected to cost less (`chooseWarmOrPrune`, with pi's own figures). The choice is
   * persisted for `/cache-ttl` and `cache-ttl report`; `{ action: "stop" }` only when pruning is the cheaper way.
   */
  warmingDecision(event: WarmingFigures, ctx: ExtensionContext): { action: "stop" } | undefined {
    this.#countWarm(ctx);
    if (!this.#view.settings.enabled) return undefined;
    const at = this.#now();
    this.#warmDecided = { at, warms: warmsSinceAnswer(ctx.sessionManager) };
    // Pruning off (a TTL not known, conflicting settings): the clock still counts the refresh, pi decides alone.
    if (this.#ttl(ctx).seconds === undefined) return undefined;
    let choice: WarmingChoice;
    try {
      const expiry = this.#view.pruneAtExpiry(messagesOf(ctx), { api: ctx.model?.api, newTurn: ctx.isIdle() });
      choice = chooseWarmOrPrune(event, { promptTokens: expiry.promptTokens, prunableTokens: expiry.plan.savedTokens });
    } catch (error) {
      this.#notices.once(ctx, "warming-error", `could not weigh pi's cache warming: ${(error as Error).message}`);
      return undefined;
    }
    this.#persist(this.#view.apply({ kind: "warming", at, chosen: choice.chosen, reason: choice.reason }));
    return choice.answer && { action: choice.answer };
  }

  /** `/cache-ttl [pin|unpin <target>]`: the status report, or a pin persisted in the session. */
  command(args: string, ctx: ExtensionContext): void {
    const command = parsePinCommand(args);
    let text: string;
    if (command.kind === "error") text = command.message;
    else if (command.kind === "pin" || command.kind === "unpin") {
      this.#persist(this.#view.apply({ kind: command.kind, at: this.#now(), ...command.target }));
      text = `cache-ttl-view: ${command.kind === "pin" ? "pinned" : "unpinned"} ${command.label}`;
    } else {
      this.#countWarm(ctx);
      const messages = messagesOf(ctx);
      const input = { now: this.#now(), ttl: this.#ttl(ctx), messages, model: ctx.model, issues: this.#issues };
      text = statusReport(this.#view, input);
    }
    if (ctx.hasUI) ctx.ui.notify(text, "info");
    else process.stdout.write(`${text}\n`);
  }

  /**
   * The clock counts pi's refreshes: when one was sent since pi last decided (a new `cache_warm` usage entry), the
   * provider's cache was touched then, and the TTL runs from there (the refresh follows the decision at once).
   */
  #countWarm(ctx: ExtensionContext): void {
    const decided = this.#warmDecided;
    if (!decided || warmsSinceAnswer(ctx.sessionManager) <= decided.warms) return;
    this.#warmDecided = undefined;
    this.#persist(this.#view.warmed(decided.at));
  }

  #persist(entry: StateEntry | undefined): void {
    if (entry) writeSessionEntry(this.#pi, STATE_ENTRY, entry);
  }

  /** The TTL for the current model: the package's one decision (`cache-ttl report` asks the same). */
  #ttl(ctx: ExtensionContext): ResolvedTtl {
    return decideTtl(this.#view.settings, this.#settingsValid, ctx.model, cacheRetention());
  }

  /**
   * "Pruning is off" for a model whose TTL is not known: said once per agent dir and model, and again only when the
   * reason changes or the TTL was known in between (see state/said.ts), not on every `pi -p`, `/new` or `/reload`.
   */
  #tellTtl(ctx: ExtensionContext, ttl: ResolvedTtl): void {
    if (ttl.source === "disabled") return;
    const model = modelKey(ctx.model);
    const reason = ttl.seconds === undefined ? ttl.reason : undefined;
    if (this.#checked.has(model) && this.#checked.get(model) === reason) return;
    this.#checked.set(model, reason);
    if (ttlNoticeDue(saidFile(resolveAgentDir()), model, reason)) {
      this.#notices.once(ctx, `ttl-off:${reason}`, `pruning is off: ${reason}`, "info");
    }
  }

  /**
   * A cold pass's work, done while pi waits for the user (a resumed 100k-message session: about 250 ms that the
   * first request would otherwise wait for). Cancelled when a request comes first; a failure only means that
   * request does the work itself.
   */
  #prepareSoon(ctx: ExtensionContext): void {
    clearTimeout(this.#preparing);
    this.#preparing = setTimeout(() => {
      this.#preparing = undefined;
      try {
        this.#view.prepare(messagesOf(ctx));
      } catch {
        this.#view.invalidate();
      }
    }, PREPARE_DELAY_MS);
    this.#preparing.unref();
  }
}
