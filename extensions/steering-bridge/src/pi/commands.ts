import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import type { SteeringSession } from "../host/delivery-core.ts";
import { formatSeamLog, type SeamLog } from "../seams/seam-log.ts";
import { parseCancelCommand, parseSteerCommand } from "./steer-command.ts";

/** `/steer`, `/cancel-tool` and `/seams`: the bridge from pi's own prompt, on either host. */
export function registerCommands(pi: ExtensionAPI, session: () => SteeringSession | undefined, log: SeamLog): void {
  pi.registerCommand("steer", {
    description: "Queue steering for the running agent: /steer [interrupt|finish|audit|remind|note] <text>",
    handler: async (args, ctx) => {
      const say = replyTo(ctx);
      const bridge = session()?.bridge;
      if (!bridge) return say("steering-bridge: no active session", "error");
      try {
        const input = parseSteerCommand(args);
        const result = bridge.inject({ ...input, source: "tui" });
        const handed = result.handedToPi ? ", handed to pi" : "";
        say(`steering: queued ${result.id} (${input.mode ?? "inbox note"})${handed}`);
      } catch (error) {
        say(`steering: ${(error as Error).message}`, "error");
      }
    },
  });

  pi.registerCommand("cancel-tool", {
    description: "Cancel the running tool call (steering-bridge): /cancel-tool [callId] [reason]",
    handler: async (args, ctx) => {
      const say = replyTo(ctx);
      const bridge = session()?.bridge;
      if (!bridge) return say("steering-bridge: no active session", "error");
      const cancel = parseCancelCommand(args);
      const calls = bridge.status().toolCallsInFlight;
      const callId = cancel.callId ?? (calls.length === 1 ? calls[0]!.callId : undefined);
      if (!callId) {
        const listed = calls.map((c) => `${c.callId} (${c.tool})`).join(", ");
        const why =
          calls.length === 0 ? "no tool call is running" : `several tool calls are running, name one: ${listed}`;
        return say(`steering: ${why}`, "error");
      }
      try {
        const result = await bridge.cancelToolCall(callId, cancel.reason ? { reason: cancel.reason } : {});
        return say(`steering: ${result.status}: ${result.callId}${result.tool ? ` (${result.tool})` : ""}`);
      } catch (error) {
        return say(`steering: ${(error as Error).message}`, "error");
      }
    },
  });

  pi.registerCommand("seams", {
    description: "Show the latest loop seam passes and pending steering items (steering-bridge)",
    handler: async (_args, ctx) => {
      const bridge = session()?.bridge;
      const lines = [
        bridge?.seams ? formatSeamLog(log.latest(20)) : "Loop seams are unavailable: this pi is not patched.",
      ];
      const pending = bridge?.pending() ?? [];
      if (pending.length > 0) {
        lines.push(`${pending.length} steering item(s) pending: ${pending.map((i) => i.id).join(", ")}`);
      }
      replyTo(ctx)(lines.join("\n"));
    },
  });
}

/** Answer a command: a TUI notification, or a line on stdout in print / RPC-less modes. */
function replyTo(ctx: { hasUI: boolean; ui: { notify(message: string, type?: "info" | "warning" | "error"): void } }) {
  return (text: string, level: "info" | "error" = "info") => {
    if (ctx.hasUI) ctx.ui.notify(text, level);
    else process.stdout.write(`${text}\n`);
  };
}
