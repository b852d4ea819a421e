import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { NoticeBoard } from "@pi-rails/agent-core/kit";
import { Type } from "typebox";
import { cacheRetention, resolveTtl } from "./clock/ttl.ts";
import { SessionView } from "./engine/session-view.ts";
import type { ViewMessage } from "./model/messages.ts";
import { statusReport } from "./report/status.ts";
import { RESTORE_TOOL, restoredContent } from "./restore/restore.ts";
import { parsePinCommand } from "./settings/pin-command.ts";
import { defaultSettings, loadCacheTtlSettings, type SettingsProblem } from "./settings/settings.ts";
import { STATE_ENTRY_TYPE, type StateEntry } from "./state/entries.ts";

/** Env seam for demos and end-to-end tests: shifts this extension's clock forward (seconds). */
export const CLOCK_OFFSET_ENV = "CACHE_TTL_VIEW_CLOCK_OFFSET_SECONDS";

export interface CacheTtlViewOptions {
  /** The clock (ms since epoch). Default: `Date.now()` plus `CACHE_TTL_VIEW_CLOCK_OFFSET_SECONDS`. */
  now?: () => number;
}

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

    const persist = (entry: StateEntry | undefined) => {
      if (entry) pi.appendEntry(STATE_ENTRY_TYPE, entry);
    };
    const currentTtl = (ctx: ExtensionContext) =>
      resolveTtl(view.settings.ttlSeconds, ctx.model?.provider, cacheRetention());

    pi.on("session_start", (_event, ctx) => {
      notices.reset();
      const loaded = loadCacheTtlSettings(ctx.cwd);
      problems = loaded.problems;
      for (const p of problems) {
        notices.once(ctx, `${p.file}:${p.key}`, `${p.file}: ${p.key || "(file)"}: ${p.message}; pruning is off`);
      }
      const settings = loaded.valid ? loaded.settings : { ...loaded.settings, enabled: false };
      view = new SessionView(settings, ctx.cwd);
      const datas: unknown[] = [];
      for (const entry of ctx.sessionManager.getBranch()) {
        if (entry.type === "custom" && entry.customType === STATE_ENTRY_TYPE) datas.push(entry.data);
      }
      view.load(datas);
    });

    pi.on("session_compact", () => view.invalidate());
    pi.on("session_tree", () => view.invalidate());

    pi.on("context", (event, ctx) => {
      let result: ReturnType<SessionView["render"]>;
      try {
        result = view.render(event.messages as ViewMessage[], { now: now(), ttlSeconds: currentTtl(ctx).seconds });
      } catch (error) {
        // The view is patched into the messages only at the very end, so a failure leaves pi's messages untouched.
        notices.once(ctx, "render-error", `could not build the view, sending it unpruned: ${(error as Error).message}`);
        return undefined;
      }
      for (const entry of result.entries) persist(entry);
      if (result.plan && ctx.hasUI) {
        ctx.ui.notify(
          `cache-ttl-view: cache expired, pruned ${result.plan.ids.length} blocks (~${result.plan.savedTokens} tokens)`,
          "info",
        );
      }
      return { messages: result.messages as typeof event.messages };
    });

    pi.on("message_end", (event) => {
      if (event.message.role === "assistant") persist(view.observeUsage(event.message.usage));
    });

    pi.on("agent_end", () => persist(view.touchEntry()));

    pi.registerTool({
      name: RESTORE_TOOL,
      label: "Restore context",
      description:
        "Show again the original of blocks that were pruned from the context after the prompt cache expired. " +
        "Pass the ids shown as id=… in [TRUNCATED] texts or in pruned tool summaries. By default the originals are " +
        "appended here, at the end of the conversation (the cached prefix stays valid); inPlace: true puts them " +
        "back where they were from the next request on (this re-writes the prompt cache from that point).",
      promptSnippet: "Restore pruned context blocks by id (ids from [TRUNCATED] texts)",
      parameters: Type.Object({
        ids: Type.Array(Type.String(), { description: 'Block ids, e.g. ["ab12cd34"]' }),
        inPlace: Type.Optional(Type.Boolean({ description: "Unprune in place instead of appending (default false)" })),
      }),
      async execute(_toolCallId, params) {
        const { found, missing } = view.originals(params.ids);
        if (found.length === 0) throw new Error(`Unknown id(s): ${params.ids.join(", ")}`);
        if (params.inPlace) {
          persist(view.apply({ kind: "restore", at: now(), ids: found.map((f) => f.id) }));
          const text = `Restored in place from the next request on: ${found.map((f) => f.id).join(", ")}.`;
          return {
            content: [{ type: "text", text }],
            details: { ids: found.map((f) => f.id), missing, inPlace: true },
          };
        }
        return {
          content: restoredContent(found, missing),
          details: { ids: found.map((f) => f.id), missing, inPlace: false },
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
