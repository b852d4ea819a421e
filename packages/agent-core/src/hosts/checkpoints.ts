/**
 * Loop checkpoints, one API on two hosts. An extension registers a handler that is asked at each seam of the loop
 * for messages to hand the model (and, before tools run, whether to skip them), and hears each pass. Whether the
 * running pi has the pi-rails patch (its `checkpoint` / `loop_checkpoint` events, every seam) or is the published
 * pi 1.6 (public events standing in for the seams they can) is decided here, once per session; the handler never
 * asks, and reads which seams this host has in `host()`.
 */
import type { ExtensionAPI, ExtensionContext, ExtensionEvent } from "@earendil-works/pi-coding-agent";
import { chooseHost, type PiHostKind, type PiHosts } from "../kit/host.ts";
import { LOOP_SEAMS, type LoopSeam } from "../seams/catalog.ts";
import { patchedCheckpointHost } from "./checkpoints/patched.ts";
import { STOCK_SEAMS, stockCheckpointHost } from "./checkpoints/stock.ts";

/** A message a seam hands the model: pi's custom message (a user-role message to the model, kept in the session). */
export interface SeamMessage {
  role: "custom";
  customType: string;
  content: string;
  display: boolean;
  details?: unknown;
  timestamp: number;
}

/** One pending tool call at pre_tool_dispatch / post_tool_dispatch. */
export interface SeamToolCall {
  id: string;
  name: string;
}

/** What the handler is asked at one seam. `iteration` is 1-based (the turn of the run). */
export interface SeamRequest {
  kind: LoopSeam;
  iteration: number;
  toolCalls: readonly SeamToolCall[];
}

/** The handler's answer at one seam. */
export interface SeamAnswer {
  messages: readonly SeamMessage[];
  /** At pre_tool_dispatch: each pending call gets a placeholder result instead of running. */
  skipToolDispatch?: boolean;
  skipReason?: string;
  /**
   * Told once whether pi kept `messages`. The patched pi always does (told before it gets them: a throw here
   * withholds them); stock pi proposes them as boundary entries, which pi drops when any extension's proposal at
   * that boundary is invalid, so it is told once pi has committed them or dropped them.
   */
  settled?: (kept: boolean) => void;
}

/** One seam pass as the loop (or the stock host) reports it: every message delivered there, by every extension. */
export interface SeamPass {
  kind: LoopSeam;
  iteration: number;
  delivered: number;
  dispatchSkipped: boolean;
}

/** An extension's part at the seams. Failures of `pass` never reach pi. */
export interface CheckpointHandler {
  checkpoint(request: SeamRequest, ctx: ExtensionContext): SeamAnswer | undefined | Promise<SeamAnswer | undefined>;
  pass?(pass: SeamPass, ctx: ExtensionContext): void;
}

/** The host a session got: which pi, and which seams it stops at. */
export interface CheckpointHost {
  kind: PiHostKind;
  seams: readonly LoopSeam[];
  /** Seams this pi cannot provide (none on the patched pi). */
  missing: readonly LoopSeam[];
}

/** What a host does with pi's events; the registration wires each event once and hands it to the session's host. */
export type CheckpointEvents = {
  [K in CheckpointEvent]?: (event: Extract<ExtensionEvent, { type: K }>, ctx: ExtensionContext) => unknown;
};
type CheckpointEvent =
  | "checkpoint"
  | "loop_checkpoint"
  | "before_agent_start"
  | "agent_start"
  | "turn_start"
  | "message_end"
  | "tool_call"
  | "turn_end"
  | "agent_end"
  | "agent_before_settle"
  | "agent_settled"
  | "session_shutdown";
const EVENTS: readonly CheckpointEvent[] = [
  "checkpoint",
  "loop_checkpoint",
  "before_agent_start",
  "agent_start",
  "turn_start",
  "message_end",
  "tool_call",
  "turn_end",
  "agent_end",
  "agent_before_settle",
  "agent_settled",
  "session_shutdown",
];

interface HostInput {
  pi: ExtensionAPI;
  handler: CheckpointHandler;
}

/** The two hosts: the patched one needs both of the patch's checkpoint events. */
export const CHECKPOINT_HOSTS: PiHosts<HostInput, CheckpointEvents> = {
  needs: ["checkpoint", "loop_checkpoint"],
  patched: ({ handler }) => patchedCheckpointHost(handler),
  stock: ({ pi, handler }) => stockCheckpointHost(pi, handler),
};

/** A registered checkpoint handler. */
export interface Checkpoints {
  /** The current session's host (chosen at its start). */
  host(): CheckpointHost;
}

/**
 * Register `handler` at the loop's seams. The host is chosen now and again at each session start (before handlers
 * registered after this call hear `session_start`), with fresh state for the new session. `options.host` forces one
 * (tests of the stock host in a patched pi, whose public events are the same).
 */
export function registerCheckpoints(
  pi: ExtensionAPI,
  handler: CheckpointHandler,
  options: { host?: PiHostKind } = {},
): Checkpoints {
  const choose = () =>
    options.host
      ? { kind: options.host, host: CHECKPOINT_HOSTS[options.host]({ pi, handler }) }
      : chooseHost(CHECKPOINT_HOSTS, { pi, handler });
  let chosen = choose();
  pi.on("session_start", () => {
    chosen = choose();
  });
  for (const name of EVENTS) {
    const on = pi.on as (event: string, handler: (event: unknown, ctx: ExtensionContext) => unknown) => void;
    on(name, (event, ctx) =>
      (chosen.host[name] as ((e: unknown, c: ExtensionContext) => unknown) | undefined)?.(event, ctx),
    );
  }
  return { host: () => describeHost(chosen.kind) };
}

/** Which seams a host of `kind` stops at. */
export function describeHost(kind: PiHostKind): CheckpointHost {
  const seams = kind === "patched" ? LOOP_SEAMS : STOCK_SEAMS;
  return { kind, seams, missing: LOOP_SEAMS.filter((seam) => !seams.includes(seam)) };
}
