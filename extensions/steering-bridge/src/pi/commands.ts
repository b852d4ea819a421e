import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { SteeringBridge } from "../bridge/steering-bridge.ts";
import type { SteeringSession } from "../host/delivery-core.ts";
import { formatSeamLog, type SeamLog } from "../seams/seam-log.ts";
import { parseCancelCommand, parseSteerCommand } from "./steer-command.ts";

/** What the model is told of a call stopped with `/cancel-tool` and no reason. */
export const CANCEL_TOOL_REASON = "stopped with /cancel-tool";

/** `/steer`, `/cancel-tool` and `/seams`: the bridge from pi's own prompt, on either host. */
export function registerCommands(pi: ExtensionAPI, session: () => SteeringSession | undefined, log: SeamLog): void {
  /** A command on the session's bridge; what goes wrong is answered `steering: <message>`. */
  const withBridge =
    (run: (args: string, bridge: SteeringBridge, say: Say) => unknown) =>
    async (args: string, ctx: ExtensionCommandContext) => {
      const say = replyTo(ctx);
      const bridge = session()?.bridge;
      if (!bridge) return say("steering-bridge: no active session", "error");
      try {
        await run(args, bridge, say);
      } catch (error) {
        say(`steering: ${(error as Error).message}`, "error");
      }
    };

  pi.registerCommand("steer", {
    description: "Queue steering for the running agent: /steer [interrupt|finish|audit|remind|note] <text>",
    handler: withBridge((args, bridge, say) => {
      const input = parseSteerCommand(args);
      const result = bridge.inject({ ...input, source: "tui" });
      say(`steering: queued ${result.id} (${input.mode ?? "inbox note"})${result.handedToPi ? ", handed to pi" : ""}`);
    }),
  });

  pi.registerCommand("cancel-tool", {
    description: "Cancel the running tool call (steering-bridge): /cancel-tool [callId] [reason]",
    handler: withBridge(async (args, bridge, say) => {
      const cancel = parseCancelCommand(args);
      const calls = bridge.status().toolCallsInFlight;
      const callId = cancel.callId ?? (calls.length === 1 ? calls[0]!.callId : undefined);
      if (!callId) {
        const listed = calls.map((c) => `${c.callId} (${c.tool})`).join(", ");
        const why =
          calls.length === 0 ? "no tool call is running" : `several tool calls are running, name one: ${listed}`;
        return say(`steering: ${why}`, "error");
      }
      // Without a reason the model is told where the cancel came from (never "cancelled by the host" twice).
      const result = await bridge.cancelToolCall(callId, { reason: cancel.reason ?? CANCEL_TOOL_REASON });
      say(`steering: ${result.status}: ${result.callId}${result.tool ? ` (${result.tool})` : ""}`);
    }),
  });

  pi.registerCommand("seams", {
    description: "Show the latest loop seam passes and pending steering items (steering-bridge)",
    handler: async (_args, ctx) => {
      const bridge = session()?.bridge;
      const lines = [formatSeamLog(log.latest(20))];
      const missing = bridge?.status().missingSeams;
      if (missing) lines.push(`This pi (no pi-rails patch) has no ${missing.join(", ")} seam.`);
      const pending = bridge?.pending() ?? [];
      if (pending.length > 0) {
        lines.push(`${pending.length} steering item(s) pending: ${pending.map((i) => i.id).join(", ")}`);
      }
      replyTo(ctx)(lines.join("\n"));
    },
  });
}

type Say = (text: string, level?: "info" | "error") => void;

/** Answer a command: a TUI notification, or a line on stdout in print / RPC-less modes. */
function replyTo(ctx: ExtensionCommandContext): Say {
  return (text, level = "info") => {
    if (ctx.hasUI) ctx.ui.notify(text, level);
    else process.stdout.write(`${text}\n`);
  };
}
