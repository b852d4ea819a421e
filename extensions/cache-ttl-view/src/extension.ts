import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
  NoticeBoard,
  readSessionEntries,
  resolveAgentDir,
  sessionBranch,
  writeSessionEntry,
} from "@pi-rails/agent-core/kit";
import { cacheRetention, decideTtl, type ResolvedTtl } from "./clock/ttl.ts";
import { type RenderResult, SessionView } from "./engine/session-view.ts";
import type { ViewMessage } from "./model/messages.ts";
import { builderOf } from "./model/session-context.ts";
import { statusReport } from "./report/status.ts";
import {
  RESTORE_PARAMETERS,
  RESTORE_TOOL,
  type RestoreParams,
  restoredContent,
  restoreNotes,
} from "./restore/restore.ts";
import { parsePinCommand } from "./settings/pin-command.ts";
import { defaultSettings, loadCacheTtlSettings, type SettingsProblem } from "./settings/settings.ts";
import { STATE_ENTRY, type StateEntry } from "./state/entries.ts";
import { modelKey, saidFile, ttlNoticeDue } from "./state/said.ts";

/** Env seam for demos and end-to-end tests: shifts this extension's clock forward (seconds). */
export const CLOCK_OFFSET_ENV = "CACHE_TTL_VIEW_CLOCK_OFFSET_SECONDS";

export interface CacheTtlViewOptions {
  /** The clock (ms since epoch). Default: `Date.now()` plus `CACHE_TTL_VIEW_CLOCK_OFFSET_SECONDS`. */
  now?: () => number;
  /** Called with what each request's view was made of (diagnostics: the clock, the prune, whether it was prepared). */
  onRender?: (result: RenderResult) => void;
}

/** How long after a session change `prepare` waits: past pi's own start-up work, well before a user's first prompt. */
const PREPARE_DELAY_MS = 50;

function defaultNow(): number {
  const offset = Number(process.env[CLOCK_OFFSET_ENV] ?? 0);
  return Date.now() + (Number.isFinite(offset) ? offset * 1000 : 0);
}

/**
 * cache-ttl-view for pi, with an injectable clock. Once the provider's prompt cache has expired, the next request
 * re-writes the whole prefix anyway: that is when old turns are replaced by short texts in the model's view
 * (`context` event only; the session file keeps every original), stickily, so the new prefix is cached again.
 */
export function createCacheTtlView(options: CacheTtlViewOptions = {}): (pi: ExtensionAPI) => void {
  const now = options.now ?? defaultNow;
  return (pi) => {
    const notices = new NoticeBoard("cache-ttl-view");
    let view = new SessionView(defaultSettings());
    let problems: SettingsProblem[] = [];
    /** False while the settings' fields conflict: nothing new is pruned, and what was pruned before stays pruned. */
    let settingsValid = true;

    const persist = (entry: StateEntry | undefined) => {
      if (entry) writeSessionEntry(pi, STATE_ENTRY, entry);
    };
    /** The TTL for the current model: the package's one decision (`cache-ttl report` asks the same). */
    const currentTtl = (ctx: ExtensionContext): ResolvedTtl =>
      decideTtl(view.settings, settingsValid, ctx.model, cacheRetention());
    /** Per model, the reason this process last checked the said-file for (`undefined`: the TTL was known). */
    const checked = new Map<string, string | undefined>();
    /**
     * "Pruning is off" for a model whose TTL is not known: said once per agent dir and model, and again only when the
     * reason changes or the TTL was known in between (see state/said.ts), not on every `pi -p`, `/new` or `/reload`.
     */
    const tellTtl = (ctx: ExtensionContext, ttl: ResolvedTtl) => {
      if (ttl.source === "disabled") return;
      const model = modelKey(ctx.model);
      const reason = ttl.seconds === undefined ? ttl.reason : undefined;
      if (checked.has(model) && checked.get(model) === reason) return;
      checked.set(model, reason);
      if (ttlNoticeDue(saidFile(resolveAgentDir()), model, reason)) {
        notices.once(ctx, `ttl-off:${reason}`, `pruning is off: ${reason}`, "info");
      }
    };
    const stateOfBranch = (ctx: ExtensionContext) => readSessionEntries(sessionBranch(ctx.sessionManager), STATE_ENTRY);
    /** The session's current context, built as pi builds it (what the next request starts from). */
    const sessionMessages = (ctx: ExtensionContext): ViewMessage[] =>
      builderOf(sessionBranch(ctx.sessionManager)).messages();

    /**
     * A cold pass's work, done while pi waits for the user (a resumed 100k-message session: about 250 ms that the
     * first request would otherwise wait for). Cancelled when a request comes first; a failure only means that
     * request does the work itself.
     */
    let preparing: NodeJS.Timeout | undefined;
    const prepareSoon = (ctx: ExtensionContext) => {
      clearTimeout(preparing);
      preparing = setTimeout(() => {
        preparing = undefined;
        try {
          view.prepare(sessionMessages(ctx));
        } catch {
          view.invalidate();
        }
      }, PREPARE_DELAY_MS);
      preparing.unref();
    };

    pi.on("session_start", (_event, ctx) => {
      notices.reset();
      // pi 1.6 reads a project's settings only in a trusted project: so does the view.
      const loaded = loadCacheTtlSettings(ctx.cwd, undefined, { projectTrusted: ctx.isProjectTrusted() });
      problems = loaded.problems;
      for (const p of problems) {
        notices.once(ctx, `${p.file}:${p.key}`, `${p.file}: ${p.key}: ${p.message}`);
      }
      // Conflicting fields turn pruning off, not the view: the blocks pruned before keep their bytes (the cached
      // prefix stays valid, and nothing pruned comes back at full size because of a typo).
      settingsValid = loaded.valid;
      view = new SessionView(loaded.settings, ctx.cwd);
      view.load(stateOfBranch(ctx));
      prepareSoon(ctx);
    });

    pi.on("session_shutdown", () => clearTimeout(preparing));

    pi.on("session_compact", (_event, ctx) => {
      view.invalidate();
      prepareSoon(ctx);
    });
    // Another branch: its own prunes, pins and restores (never the prune set of the branch left behind).
    pi.on("session_tree", (_event, ctx) => {
      view.switchBranch(stateOfBranch(ctx));
      prepareSoon(ctx);
    });

    // The view is drawn on the full transcript of the request (`context_with_system`, after every `context`
    // handler): pi 1.6's system messages (the prompt and tool loadout, and their later patches) stay where they are
    // and untouched. Returning a changed list from `context` instead would make pi fold every system message into
    // one leading message, and each later prompt or tool change would then re-write the whole cached prefix on
    // models that take system messages mid-conversation.
    pi.on("context_with_system", (event, ctx) => {
      clearTimeout(preparing);
      const ttl = currentTtl(ctx);
      tellTtl(ctx, ttl);
      let result: ReturnType<SessionView["render"]>;
      try {
        result = view.render(event.messages as ViewMessage[], {
          now: now(),
          ttlSeconds: ttl.seconds,
          ...(ctx.model?.api !== undefined ? { api: ctx.model.api } : {}),
        });
      } catch (error) {
        // The view is patched into the messages only at the very end, so a failure leaves pi's messages untouched.
        notices.once(ctx, "render-error", `could not build the view, sending it unpruned: ${(error as Error).message}`);
        return undefined;
      }
      options.onRender?.(result);
      for (const entry of result.entries) persist(entry);
      if (result.plan && ctx.hasUI) {
        ctx.ui.notify(
          `cache-ttl-view: cache expired, pruned ${result.plan.ids.length} blocks (~${result.plan.savedTokens} tokens)`,
          "info",
        );
      }
      return { messages: result.messages as typeof event.messages };
    });

    // A prune is folded into the view's state once the request is on its way (see `SessionView.settle`): the answer
    // has begun, and the request did not wait for it.
    pi.on("message_start", () => view.settle());

    pi.on("message_end", (event) => {
      if (event.message.role === "assistant") persist(view.observeUsage(event.message.usage));
    });

    pi.on("agent_end", () => persist(view.touchEntry()));

    /**
     * Ids whose originals a `context_restore` call of the current turn appended: pi runs a turn's tool calls together,
     * so a second call for the same id does not see the first one's result in the session yet.
     */
    const appending = new Set<string>();
    pi.on("turn_start", () => appending.clear());

    pi.registerTool({
      name: RESTORE_TOOL,
      label: "Restore context",
      description:
        "Show again the original of blocks that were pruned from the context after the prompt cache expired. " +
        "Pass the ids shown as id=… in [TRUNCATED] texts or in pruned tool summaries. By default the originals are " +
        "appended here, at the end of the conversation (the cached prefix stays valid); inPlace: true puts them " +
        "back where they were from the next request on (this re-writes the prompt cache from that point).",
      promptSnippet: "Restore pruned context blocks by id (ids from [TRUNCATED] texts)",
      parameters: RESTORE_PARAMETERS,
      async execute(_toolCallId, input, _signal, _onUpdate, ctx) {
        const params = input as RestoreParams;
        const branch = builderOf(sessionBranch(ctx.sessionManager));
        // Ids another call of this turn appends count as shown, for an in-place restore too: pi runs the turn's
        // calls together, and restoring in place what is appended at the tail would send the original twice.
        const ids = view.originals(params.ids, branch.messages(), branch.history(), appending);
        const ok = ids.found.length + ids.alreadyShown.length;
        if (ok === 0 && ids.notPruned.length === 0) throw new Error(restoreNotes(ids).join(" "));
        if (params.inPlace) {
          // Only what is pruned and not shown in full at the tail: restoring an id twice, one never pruned, or one
          // an earlier restore appended (still in view there) changes nothing and says so: one copy is sent.
          const restored = ids.found.map((f) => f.id);
          if (restored.length > 0) persist(view.apply({ kind: "restore", at: now(), ids: restored }));
          const lines =
            restored.length > 0 ? [`Restored in place from the next request on: ${restored.join(", ")}.`] : [];
          lines.push(
            ...restoreNotes({ notPruned: ids.notPruned, alreadyShown: ids.alreadyShown, missing: ids.missing }),
          );
          return {
            content: [{ type: "text", text: lines.join("\n") }],
            details: {
              ids: restored,
              alreadyShown: ids.alreadyShown,
              notPruned: ids.notPruned,
              missing: ids.missing,
              inPlace: true,
            },
          };
        }
        for (const found of ids.found) appending.add(found.id);
        return {
          content: restoredContent(ids.found, restoreNotes(ids)),
          details: {
            ids: ids.found.map((f) => f.id),
            alreadyShown: ids.alreadyShown,
            notPruned: ids.notPruned,
            missing: ids.missing,
            inPlace: false,
          },
        };
      },
    });

    pi.registerCommand("cache-ttl", {
      description: "Prompt-cache clock and what cache-ttl-view pruned; `pin <id|glob|tool:name>` / `unpin ...`",
      handler: async (args, ctx) => {
        const command = parsePinCommand(args ?? "");
        let text: string;
        if (command.kind === "error") text = command.message;
        else if (command.kind === "pin" || command.kind === "unpin") {
          persist(view.apply({ kind: command.kind, at: now(), ...command.target }));
          text = `cache-ttl-view: ${command.kind === "pin" ? "pinned" : "unpinned"} ${command.label}`;
        } else {
          text = statusReport(view, {
            now: now(),
            ttl: currentTtl(ctx),
            messages: sessionMessages(ctx),
            model: ctx.model,
            problems,
          });
        }
        if (ctx.hasUI) ctx.ui.notify(text, "info");
        else process.stdout.write(`${text}\n`);
      },
    });
  };
}

/** The extension pi loads (`pi -e`, `pi install`). */
export default function cacheTtlView(pi: ExtensionAPI): void {
  createCacheTtlView()(pi);
}
