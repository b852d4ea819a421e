import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { NoticeBoard } from "@pi-rails/agent-core/kit";
import { describeCache, judgeCache } from "./clock/cache-clock.ts";
import { type CacheTtlSettings, loadCacheTtlSettings } from "./settings/settings.ts";

/**
 * cache-ttl-view for pi. This first release tracks the provider's prompt-cache clock (time since the last
 * provider response against the configured TTL) and reports it with `/cache-ttl`; pruning the view of old turns
 * once the cache has expired builds on this clock.
 */
export default function cacheTtlView(pi: ExtensionAPI): void {
  const notices = new NoticeBoard("cache-ttl-view");
  let settings: CacheTtlSettings | undefined;
  let lastResponseAt: number | undefined;

  pi.on("session_start", (_event, ctx) => {
    notices.reset();
    lastResponseAt = undefined;
    const loaded = loadCacheTtlSettings(ctx.cwd);
    settings = loaded.settings;
    for (const problem of loaded.problems) {
      notices.once(ctx, `${problem.file}:${problem.key}`, `${problem.file}: ${problem.key}: ${problem.message}`);
    }
  });

  pi.on("message_end", (event) => {
    if (event.message.role === "assistant") lastResponseAt = Date.now();
  });

  pi.registerCommand("cache-ttl", {
    description: "Show whether the provider's prompt cache is still warm (cache-ttl-view)",
    handler: async (_args, ctx) => {
      const text = settings ? describeCache(judgeCache(lastResponseAt, Date.now(), settings)) : "No session yet.";
      if (ctx.hasUI) ctx.ui.notify(text, "info");
      else process.stdout.write(`${text}\n`);
    },
  });
}
