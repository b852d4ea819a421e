import type { NoticeContext, NoticeLevel } from "./notices.ts";

/** The part of pi's `stream_abort` extension event the notice reads (structural: no dependency on pi). */
export interface StreamAbortLike {
  consecutive: number;
  capReached: boolean;
  retry?: { details?: unknown };
}

/**
 * The one line the interactive UI shows when a stream rule interrupted the response: the patched loop carries no
 * wording, so the extension that aborted says why (rule names from `retry.details.rules`, pi-ttsr's shape).
 */
export function streamAbortNotice(event: StreamAbortLike): { text: string; level: NoticeLevel } {
  if (event.capReached) {
    return {
      text: `Stream rule interrupted ${event.consecutive} responses in a row; stopping this turn`,
      level: "warning",
    };
  }
  const rules = (event.retry?.details as { rules?: unknown } | undefined)?.rules;
  const names = Array.isArray(rules)
    ? rules.map((rule) => (typeof rule === "string" ? rule : (rule as { name?: unknown } | null)?.name)).filter(Boolean)
    : [];
  const what = names.length > 0 ? `rule ${names.join(", ")}` : "a stream rule";
  return { text: `↻ Response interrupted by ${what}; retrying (attempt ${event.consecutive + 1})`, level: "info" };
}

/** Show the notice in pi's UI (`stream_abort` handler); print and JSON modes have no UI and stay quiet. */
export function showStreamAbortNotice(ctx: NoticeContext, event: StreamAbortLike): void {
  if (!ctx.hasUI) return;
  const { text, level } = streamAbortNotice(event);
  ctx.ui.notify(text, level);
}
