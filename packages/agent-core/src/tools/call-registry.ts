/**
 * Cancelling one tool call while the rest of the run goes on. pi gives every call of a batch the run's signal, so
 * aborting it stops them all; this registry gives each call its own signal, linked to the run's, and lets a host
 * cancel that one. The cancelled call returns the host's text to the model as its result (not an error), and a
 * reminder of the host's type follows the batch. It wraps a tool's `execute`, so it works on stock pi (a tool
 * registered under a built-in's name replaces it) as well as on the patched one.
 */

import { DEFAULT_CANCEL_REASON } from "./cancelled.ts";

export type CancelToolCallStatus = "cancelled" | "already_cancelled" | "not_found" | "timeout";

/** What became of a cancel request; `tool` and `reason` are set whenever the call was known. */
export interface CancelToolCallResult {
  status: CancelToolCallStatus;
  callId: string;
  tool?: string;
  reason?: string;
}

/** A call executing now, by pi's id. */
export interface ToolCallInFlight {
  callId: string;
  tool: string;
  startedAt: number;
}

export interface CancelToolCallOptions {
  /** Default "cancelled by the host". */
  reason?: string;
  /** Default true: the reminder follows the batch. */
  injectReminder?: boolean;
  /** How long to wait for the tool to settle once its signal is aborted (default 5000). */
  timeoutMs?: number;
  /** Words what the model is told; default: the registry's. */
  describe?: DescribeCancellation;
}

/** The host words what the model is told of a cancelled call: its result, and the reminder (of its own type). */
export type DescribeCancellation = (call: { callId: string; tool: string; reason: string }) => {
  result: string;
  reminder: string;
  customType: string;
};

/** A cancelled call's reminder, as the host worded it (`reminderText`, of the host's `customType`). */
export interface ToolCallCancellation {
  callId: string;
  tool: string;
  reason: string;
  reminderText: string;
  customType: string;
}

/** The part of a tool this registry needs: pi's `AgentTool` and an extension's `ToolDefinition` both have it. */
export interface CancellableTool {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: pi's tools take their own parameter and result types.
  execute: (callId: string, args: any, signal?: AbortSignal, ...rest: any[]) => Promise<any>;
}

export interface ToolCallRegistryOptions {
  /** The wording when a cancel passes none. */
  describe: DescribeCancellation;
  /** Called once per cancelled call that owes a reminder: the host delivers it after the batch. */
  onReminder: (cancellation: ToolCallCancellation) => void;
  /** The clock of `startedAt` (default `Date.now`). */
  now?: () => number;
}

interface RunningCall {
  info: ToolCallInFlight;
  abort: AbortController;
  settled: Promise<unknown>;
  release: () => void;
  result?: { content: { type: "text"; text: string }[]; details: { cancelled: { byHost: true; reason: string } } };
}

/** Ids of cancelled calls are remembered this long (by count): a cancel repeated later says "already cancelled". */
const REMEMBERED_CANCELS = 1000;

export class ToolCallRegistry {
  readonly #running = new Map<string, RunningCall>();
  /** The last cancelled ids; a later call that reuses one starts fresh. */
  readonly #cancelled = new Map<string, { tool: string; reason: string }>();
  readonly #options: ToolCallRegistryOptions;

  constructor(options: ToolCallRegistryOptions) {
    this.#options = options;
  }

  /** `tool` with each execution registered here, so that it can be cancelled from its first line. */
  wrap<T extends CancellableTool>(tool: T): T {
    const execute: CancellableTool["execute"] = async (callId, args, runSignal, ...rest) => {
      const abort = new AbortController();
      const info = { callId, tool: tool.name, startedAt: (this.#options.now ?? Date.now)() };
      const call: RunningCall = { info, abort, settled: Promise.resolve(), release: () => {} };
      const released = new Promise<void>((resolve) => {
        call.release = resolve;
      });
      this.#cancelled.delete(callId);
      this.#running.set(callId, call);
      const signal = runSignal ? AbortSignal.any([runSignal, abort.signal]) : abort.signal;
      const execution = (async () => tool.execute(callId, args, signal, ...rest))();
      call.settled = execution.catch(() => {});
      await Promise.race([call.settled, released]);
      if (this.#running.get(callId) === call) this.#running.delete(callId);
      return call.result ?? execution;
    };
    return { ...tool, execute };
  }

  /** Abort the call running under `callId`, and wait up to `timeoutMs` for the tool to settle. */
  async cancel(callId: string, options: CancelToolCallOptions = {}): Promise<CancelToolCallResult> {
    const known = this.#cancelled.get(callId);
    if (known) return { status: "already_cancelled", callId, ...known };
    const reason = options.reason?.trim() || DEFAULT_CANCEL_REASON;
    const call = this.#running.get(callId);
    if (!call) return { status: "not_found", callId, reason };
    const { tool } = call.info;
    const describe = options.describe ?? this.#options.describe;
    const { result, reminder, customType } = describe({ callId, tool, reason });
    call.result = { content: [{ type: "text", text: result }], details: { cancelled: { byHost: true, reason } } };
    this.#cancelled.set(callId, { tool, reason });
    if (this.#cancelled.size > REMEMBERED_CANCELS)
      this.#cancelled.delete(this.#cancelled.keys().next().value as string);
    if (options.injectReminder !== false) {
      this.#options.onReminder({ callId, tool, reason, reminderText: reminder, customType });
    }
    call.abort.abort();
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 5000);
    const timedOut = new Promise<"timeout">((resolve) => timeout.addEventListener("abort", () => resolve("timeout")));
    const status = await Promise.race([call.settled.then(() => "cancelled" as const), timedOut]);
    call.release();
    return { status, callId, tool, reason };
  }

  /** The calls executing now, oldest first. */
  inFlight(): ToolCallInFlight[] {
    return [...this.#running.values()].map((call) => ({ ...call.info }));
  }
}
