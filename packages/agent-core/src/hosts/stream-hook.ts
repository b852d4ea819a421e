/**
 * The stream hook, one API on two hosts. An extension registers a handler that reads each streamed delta and may
 * stop the response and retry it with a hidden message; whether the running pi has the pi-rails patch
 * (`stream_text`, the loop retries in the same turn) or is the published pi 1.6 (public events: `message_update`,
 * `ctx.abort()`, a retry once pi settled) is decided here, once per session, and the handler never asks.
 */
import type { Usage } from "@earendil-works/pi-ai";
import type { ExtensionAPI, ExtensionContext, ExtensionEvent } from "@earendil-works/pi-coding-agent";
import { chooseHost, type PiHostKind, type PiHosts } from "../kit/host.ts";
import { patchedStreamHost } from "./stream-hook/patched.ts";
import { stockStreamHost } from "./stream-hook/stock.ts";

export { ResponseBoundary } from "./stream-hook/response-boundary.ts";

/** One streamed delta: prose, reasoning, or a tool call's raw argument JSON (with the call's id and name). */
export interface StreamHookDelta {
  source: "text" | "thinking" | "tool";
  chunk: string;
  toolCall?: { id: string; name: string };
}

/** A hidden message to the model (pi's custom message: never shown, persisted with its `details`). */
export interface StreamHookMessage {
  customType: string;
  content: string;
  details?: unknown;
}

/** A handler's answer to a delta: stop this response and retry with `content` as a hidden message. */
export interface StreamHookInterrupt extends StreamHookMessage {
  /** Keep the partial's prose (not its thinking or tool calls) in the conversation before the retry. */
  keepPartial?: boolean;
  /** What the session records of the aborted attempt, where the host keeps it (the patched loop). */
  explanation?: string;
  /**
   * When the abort cap lets the response run on (stock pi), a tool call this interrupt was about is blocked before
   * it runs, and this is what the model reads as its result (default: `content`).
   */
  blockReason?: string;
}

/** What became of an interrupt the handler answered. */
export type StreamHookOutcome =
  /** The response was stopped and the retry goes out; `usage`: what the aborted attempt cost, when pi reported it. */
  | { kind: "retried"; interrupt: StreamHookInterrupt; consecutive: number; usage?: Usage }
  /**
   * The abort cap (3 in a row) dropped the retry. `turnEnded`: the loop ended the turn there (the rest of the
   * response was not read; `usage` is what the aborted attempt cost); otherwise the response runs on to its end,
   * and tool calls the interrupt was about are blocked (`blocked` follows).
   */
  | { kind: "capped"; interrupt: StreamHookInterrupt; consecutive: number; turnEnded: boolean; usage?: Usage }
  /** A tool call that capped interrupts were about was blocked before it ran. */
  | { kind: "blocked"; interrupts: readonly StreamHookInterrupt[]; toolCallId: string };

/** An extension's stream hook. Only `onDelta` is required; every method runs for the session that registered it. */
export interface StreamHook {
  /** A response begins (a retry included): per-response state such as stream buffers starts empty. */
  onResponseStart?(ctx: ExtensionContext): void;
  /** One delta, synchronously inside the stream: answer an interrupt to stop the response here. */
  onDelta(delta: StreamHookDelta, ctx: ExtensionContext): StreamHookInterrupt | undefined;
  /** A response ended; `stopReason` is "aborted" for one an interrupt stopped. */
  onResponseEnd?(end: { stopReason: string }, ctx: ExtensionContext): void;
  /**
   * Where a follow-up may go after a response that ended normally: what this returns reaches the model before its
   * next request (the patched loop's next seam, or stock pi's follow-up queue, starting a turn when pi is idle).
   */
  takeFollowUp?(ctx: ExtensionContext): StreamHookMessage | undefined;
  /** What became of an interrupt the hook answered. */
  onOutcome?(outcome: StreamHookOutcome, ctx: ExtensionContext): void;
}

/** The session's hook, read at each event: `undefined` while the extension has none (its session still loading). */
export type StreamHookSource = (ctx: ExtensionContext) => StreamHook | undefined;

/** The pi events a host may answer (the patched ones fire only in the patched pi). */
const HOST_EVENTS = [
  "stream_text",
  "stream_abort",
  "checkpoint",
  "message_update",
  "message_start",
  "message_end",
  "context",
  "tool_call",
  "agent_start",
  "agent_settled",
] as const;
type HostEvent = (typeof HOST_EVENTS)[number];

/** What a host does with pi's events; the registration wires each event once and hands it to the session's host. */
export type StreamHost = {
  [K in HostEvent]?: (event: Extract<ExtensionEvent, { type: K }>, ctx: ExtensionContext) => unknown;
};

/** The two hosts: the patched one needs the patch's `stream_text` (its `stream_abort` and `checkpoint` come with it). */
export const STREAM_HOOK_HOSTS: PiHosts<{ pi: ExtensionAPI; hookOf: StreamHookSource }, StreamHost> = {
  needs: ["stream_text"],
  patched: ({ hookOf }) => patchedStreamHost(hookOf),
  stock: ({ pi, hookOf }) => stockStreamHost(pi, hookOf),
};

/** A registered stream hook. */
export interface StreamHookRegistration {
  /** Which host this session runs on (for status reports; the hook itself never needs it). */
  readonly kind: PiHostKind;
}

/**
 * Register a stream hook: `hook` (or, for a hook built per session, a function returning the session's) sees every
 * streamed delta. The host is chosen now and again at each session start, with fresh state for the new session.
 */
export function registerStreamHook(pi: ExtensionAPI, hook: StreamHook | StreamHookSource): StreamHookRegistration {
  const hookOf: StreamHookSource = typeof hook === "function" ? hook : () => hook;
  let chosen = chooseHost(STREAM_HOOK_HOSTS, { pi, hookOf });
  pi.on("session_start", () => {
    chosen = chooseHost(STREAM_HOOK_HOSTS, { pi, hookOf });
  });
  // One handler per event for the extension's lifetime; the session's host answers it (or does nothing).
  type Handler = (event: unknown, ctx: ExtensionContext) => unknown;
  const on = pi.on.bind(pi) as (event: HostEvent, handler: Handler) => void;
  for (const name of HOST_EVENTS) on(name, (event, ctx) => (chosen.host[name] as Handler | undefined)?.(event, ctx));
  return {
    get kind() {
      return chosen.kind;
    },
  };
}
