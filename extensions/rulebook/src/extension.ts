import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { TTSR_STATUS_EVENT } from "./handoff/ttsr.ts";
import { RulebookSession } from "./session/rulebook-session.ts";
import { registerReadRuleTool } from "./tools/read-rule.ts";

/** The rulebook extension: pi's events, the `read_rule` tool and `/rulebook`, each handed to the session. */
export default function rulebook(pi: ExtensionAPI): void {
  const session = new RulebookSession(pi);
  pi.events.on(TTSR_STATUS_EVENT, (payload) => session.ttsrStatus(payload));
  registerReadRuleTool(pi, () => session.readable());
  pi.registerCommand("rulebook", {
    description: "Show where each rule came from, its bucket, and why rules were shadowed or skipped",
    handler: (_args, ctx) => session.doctor(ctx),
  });
  pi.on("session_start", (_event, ctx) => session.start(ctx));
  pi.on("session_tree", (_event, ctx) => session.branchChanged(ctx));
  pi.on("before_agent_start", (event, ctx) => session.beforeAgentStart(event, ctx));
  pi.on("tool_result", (event, ctx) => session.toolResult(event, ctx));
}
