import { describeCache } from "../clock/cache-clock.ts";
import type { ResolvedTtl } from "../clock/ttl.ts";
import type { SessionView } from "../engine/session-view.ts";
import type { ViewMessage } from "../model/messages.ts";
import type { SettingsIssue } from "../settings/settings.ts";
import { formatUsd, type Prices, pruneSavings } from "./prices.ts";

export interface StatusInput {
  now: number;
  ttl: ResolvedTtl;
  model: { provider: string; id: string; api?: string; cost?: Prices } | undefined;
  issues: readonly SettingsIssue[];
  /** The session's current context (pi's), to label pruned blocks. */
  messages: readonly ViewMessage[];
}

const n = (x: number) => Math.round(x).toLocaleString("en-US");

/** The `/cache-ttl` text: clock, what is pruned, tokens and money saved at the model's prices. */
export function statusReport(view: SessionView, input: StatusInput): string {
  const lines: string[] = [];
  const { settings, state } = view;
  if (input.issues.length > 0) {
    lines.push("cache-ttl-view: settings issues:");
    for (const p of input.issues) lines.push(`  ${p.file}: ${p.key}: ${p.message}`);
  }
  if (!settings.enabled) lines.push("cache-ttl-view: Pruning is off.");
  else if (input.ttl.seconds === undefined) lines.push(`cache-ttl-view: Pruning is off: ${input.ttl.reason}.`);
  else {
    const source = input.ttl.source === "settings" ? "settings" : input.ttl.reason;
    const clock = describeCache(view.peekClock(input.now, input.ttl.seconds));
    lines.push(`cache-ttl-view: ${clock} TTL ${input.ttl.seconds}s (${source}), buffer ${settings.bufferSeconds}s.`);
  }
  const warming = state.warming;
  if (warming) {
    const ago = Math.max(0, Math.round((input.now - warming.at) / 1000));
    lines.push(`pi's cache warming, ${ago}s ago: ${warming.chosen === "warm" ? "warm" : "prune"}: ${warming.reason}.`);
  }
  const perRequest = view.savedPerRequest(input.messages, input.model?.api);
  lines.push(
    state.pruned.size === 0
      ? "Nothing pruned in this session."
      : `Pruned: ${state.pruned.size} blocks in ${state.prunes.length} prune(s), about ${n(perRequest)} tokens less per request.`,
  );
  const blocks = view.prunedBlocks(input.messages);
  if (blocks.length > 0) {
    const shown = blocks.slice(0, 12).map((b) => `${b.id} (${b.label})`);
    lines.push(`  ${shown.join(", ")}${blocks.length > shown.length ? `, +${blocks.length - shown.length} more` : ""}`);
  }
  if (state.prunes.length > 0) {
    let tokens = 0;
    let money = 0;
    const cost = input.model?.cost;
    state.prunes.forEach((p, i) => {
      const requests = view.requestsAfterPrune[i] ?? 0;
      tokens += p.savedTokens * requests;
      if (cost) money += pruneSavings(cost, p.savedTokens, requests);
    });
    const price = cost
      ? `, ${formatUsd(money)} at ${input.model?.provider}/${input.model?.id} prices (write $${cost.cacheWrite || cost.input}/M, read $${cost.cacheRead || cost.input}/M)`
      : "";
    lines.push(`Saved in this process: about ${n(tokens)} prompt tokens${price}.`);
  }
  const pins = view.pins();
  if (pins.ids.size + pins.tools.size + pins.paths.length > 0) {
    lines.push(
      `Pins: tools [${[...pins.tools].join(", ")}], paths [${pins.paths.join(", ")}], ids [${[...pins.ids].join(", ")}]`,
    );
  }
  return lines.join("\n");
}
