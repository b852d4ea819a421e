import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { RenderResult } from "./engine/session-view.ts";
import type { ViewMessage } from "./model/messages.ts";
import { RESTORE_TOOL_INFO, type RestoreParams } from "./restore/restore.ts";
import { CacheTtlSession } from "./session/cache-ttl-session.ts";

/** Env seam for demos and end-to-end tests: shifts this extension's clock forward (seconds). */
export const CLOCK_OFFSET_ENV = "CACHE_TTL_VIEW_CLOCK_OFFSET_SECONDS";

export interface CacheTtlViewOptions {
  /** The clock (ms since epoch). Default: `Date.now()` plus `CACHE_TTL_VIEW_CLOCK_OFFSET_SECONDS`. */
  now?: () => number;
  /** Called with what each request's view was made of (diagnostics: the clock, the prune, whether it was prepared). */
  onRender?: (result: RenderResult) => void;
}

function defaultNow(): number {
  const offset = Number(process.env[CLOCK_OFFSET_ENV] ?? 0);
  return Date.now() + (Number.isFinite(offset) ? offset * 1000 : 0);
}

/**
 * cache-ttl-view for pi, with an injectable clock. Once the provider's prompt cache has expired, the next request
 * re-writes the whole prefix anyway: that is when old turns are replaced by short texts in the model's view
 * (`context_with_system` only; the session file keeps every original), stickily, so the new prefix is cached again.
 * This only wires pi's events to the session object (`CacheTtlSession`), which does the work.
 */
export function createCacheTtlView(options: CacheTtlViewOptions = {}): (pi: ExtensionAPI) => void {
  return (pi) => {
    const session = new CacheTtlSession(pi, options.now ?? defaultNow, options.onRender);
    pi.on("session_start", (_event, ctx) => session.start(ctx));
    pi.on("session_shutdown", () => session.shutdown());
    pi.on("session_compact", (_event, ctx) => session.compacted(ctx));
    pi.on("session_tree", (_event, ctx) => session.branchChanged(ctx));
    // The view is drawn on the full transcript of the request (`context_with_system`, after every `context`
    // handler): pi 1.6's system messages (the prompt and tool loadout, and their later patches) stay where they are
    // and untouched. Returning a changed list from `context` instead would make pi fold every system message into
    // one leading message, and each later prompt or tool change would then re-write the whole cached prefix on
    // models that take system messages mid-conversation.
    pi.on("context_with_system", (event, ctx) => {
      const messages = session.render(event.messages as ViewMessage[], ctx);
      return messages && { messages: messages as typeof event.messages };
    });
    // A prune is folded into the view's state once the request is on its way: the answer has begun.
    pi.on("message_start", () => session.requestSent());
    pi.on("message_end", (event) => session.messageEnded(event.message));
    pi.on("agent_end", () => session.agentEnded());
    pi.on("turn_start", () => session.turnStarted());
    // pi's cache warming and the prune decide together: warm the cache, or let it expire and prune (by cost).
    pi.on("cache_warming_decision", (event, ctx) => session.warmingDecision(event, ctx));
    pi.registerTool({
      ...RESTORE_TOOL_INFO,
      execute: async (_id, input, _signal, _onUpdate, ctx) => session.restore(input as RestoreParams, ctx),
    });
    pi.registerCommand("cache-ttl", {
      description: "Prompt-cache clock and what cache-ttl-view pruned; `pin <id|glob|tool:name>` / `unpin ...`",
      handler: async (args, ctx) => session.command(args ?? "", ctx),
    });
  };
}

/** The extension pi loads (`pi -e`, `pi install`). */
export default function cacheTtlView(pi: ExtensionAPI): void {
  createCacheTtlView()(pi);
}
