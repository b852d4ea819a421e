import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { hasPiPatchFeature, NoticeBoard } from "@pi-rails/agent-core/kit";
import { formatSeamLog, SeamLog } from "./seams/seam-log.ts";

/**
 * steering-bridge for pi. This first release makes the loop seams visible: every seam pass of the patched loop is
 * recorded and `/seams` shows the latest ones. On stock pi (no seams) it says so once and stays out of the way.
 */
export default function steeringBridge(pi: ExtensionAPI): void {
  const log = new SeamLog();
  const notices = new NoticeBoard("steering-bridge");

  pi.on("session_start", (_event, ctx) => {
    log.clear();
    notices.reset();
    if (!hasPiPatchFeature("loop_checkpoint")) {
      notices.once(
        ctx,
        "stock-pi",
        "this pi has no loop seams (stock pi, without the pi-rails patch): seam observation is unavailable",
      );
    }
  });

  pi.on("loop_checkpoint", (event) => {
    log.record({
      iteration: event.iteration,
      kind: event.kind,
      delivered: event.delivered,
      inboxDelivered: event.inboxDelivered,
      dispatchSkipped: event.dispatchSkipped,
    });
  });

  pi.registerCommand("seams", {
    description: "Show the latest loop seam passes (steering-bridge)",
    handler: async (_args, ctx) => {
      const text = hasPiPatchFeature("loop_checkpoint")
        ? formatSeamLog(log.latest(20))
        : "Loop seams are unavailable: this pi is not patched.";
      if (ctx.hasUI) ctx.ui.notify(text, "info");
      else process.stdout.write(`${text}\n`);
    },
  });
}
