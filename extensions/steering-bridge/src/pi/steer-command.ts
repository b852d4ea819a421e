import type { DeliveryMode } from "@pi-rails/agent-core/kit";
import { SteeringInputError } from "../queue/steering-queue.ts";
import type { SteeringItemInput } from "../queue/types.ts";

const WORDS: Record<string, { mode?: DeliveryMode; kind: SteeringItemInput["kind"] }> = {
  interrupt: { mode: "interrupt_immediate", kind: "message" },
  finish: { mode: "finish_step", kind: "message" },
  audit: { mode: "audit_only", kind: "message" },
  remind: { mode: "finish_step", kind: "reminder" },
  note: { kind: "note" },
};

/**
 * `/steer [interrupt|finish|audit|remind|note] <text>`: the first word picks the mode; without one the command
 * queues a finish_step message (the command's documented default; the queue API itself never defaults a mode).
 */
export function parseSteerCommand(args: string): SteeringItemInput {
  const text = args.trim();
  const [first = "", ...rest] = text.split(/\s+/);
  const word = WORDS[first.toLowerCase()];
  const content = word ? rest.join(" ") : text;
  if (content === "") {
    throw new SteeringInputError("text", "usage: /steer [interrupt|finish|audit|remind|note] <text>");
  }
  const { mode, kind } = word ?? { mode: "finish_step" as const, kind: "message" as const };
  return mode ? { content, mode, kind } : { content, kind };
}

/** `/cancel-tool [callId] [reason...]`: cancel a running tool call (without an id: the only one running). */
export function parseCancelCommand(args: string): { callId?: string; reason?: string } {
  const [callId, ...rest] = args.trim().split(/\s+/).filter(Boolean);
  return { ...(callId && { callId }), ...(rest.length > 0 && { reason: rest.join(" ") }) };
}
