import {
  type CheckpointPass,
  CheckpointRegistry,
  type DeliveryMode,
  LOOP_SEAMS,
  type LoopSeam,
  SEAM_DRAIN_POLICY,
  type SeamAnswer,
  type SeamMessage,
  type SeamRequest,
} from "@pi-rails/agent-core/kit";
import { renderItem } from "../queue/render.ts";
import { SteeringQueue } from "../queue/steering-queue.ts";
import type { Ack, RevokeResult, SteeringItem, SteeringItemInput } from "../queue/types.ts";
import type { SteeringCheckpoint } from "../seams/seam-log.ts";
import { resolveCallId } from "./call-ids.ts";
import type { CancelToolCallOptions, CancelToolCallResult, ToolCallInFlight } from "./cancel.ts";
import { releaseCancelledCall } from "./release.ts";
import { ToolTracker } from "./tool-tracker.ts";

/** Result of an inject / remind / postEvent. */
export interface InjectResult {
  id: string;
  /** The pending item with the same dedupeKey that this one replaced. */
  replaced?: string;
  /** No seam of this host takes it now (stock pi between runs, or an inbox note): handed to pi's own queue. */
  handedToPi?: boolean;
  /** The producer's `id` was already queued or settled: this request queued nothing (a safe retry). */
  duplicate?: boolean;
}

/** A message the loop appends (pi-agent-core's AgentMessage, as the registry hands it over). */
export type AgentMessage = CheckpointPass["messages"][number];

/** What `steer/status` reports. */
export interface BridgeStatus {
  sessionId: string;
  pid: number;
  cwd: string;
  /** A run (prompt) is in progress. */
  running: boolean;
  /** The iteration of the last seam pass (1-based; 0 before the first). */
  iteration: number;
  lastSeam?: LoopSeam;
  toolCallsInFlight: ToolCallInFlight[];
  pending: number;
  /** `seams`: the host stops at every loop seam. */
  features: { seams: boolean; cancel: boolean };
  /** The loop seams this host cannot stop at (stock pi 1.6); absent when there are none. */
  missingSeams?: LoopSeam[];
}

/** The drain phase of one seam: pi's `checkpoint` answer, and how many of its messages are inbox notes. */
export interface SeamDeliveries {
  /** Bridge items first (in mode order), then inbox notes: what pi appends at the seam. */
  messages: AgentMessage[];
  /** How many of `messages` (the last ones) are inbox notes; pi counts only the total, the bridge counts these. */
  inboxDelivered: number;
  skipToolDispatch: boolean;
  skipReason?: string;
}

/** One seam pass as pi's `loop_checkpoint` reports it: every message delivered there in one count. */
export interface LoopPass {
  iteration: number;
  kind: LoopSeam;
  /** Every message delivered at the seam, by every extension. */
  delivered: number;
  dispatchSkipped: boolean;
}

/** Where the bridge can cancel a running tool call (the patched pi), when it can. */
export interface CancelBackend {
  cancel(callId: string, options: CancelToolCallOptions): Promise<CancelToolCallResult>;
  inFlight(): ToolCallInFlight[];
}

/** Raised when a feature is missing in the running pi (stock pi): the endpoint maps it to a coded error. */
export class UnavailableError extends Error {
  readonly feature: string;
  constructor(feature: string, message: string) {
    super(message);
    this.name = "UnavailableError";
    this.feature = feature;
  }
}

/**
 * Where the bridge meets the pi it runs in (agent-core's checkpoint host, chosen once per session). Without one (a
 * bridge used on its own) there are all seams, no cancel, and audit_only items are rendered as `steering:audit`
 * messages.
 */
export interface BridgeHost {
  /** The loop seams this host stops at (default: every one). */
  seams?: readonly LoopSeam[];
  /** Cancel of one running tool call, when the host has it. */
  cancel?: CancelBackend | undefined;
  /**
   * Hands items to pi's own queue outside the seams, acknowledged delivered to "pi_queue": during a run, those no
   * seam of this host drains (inbox notes without the compaction seams); between runs, every item, but only when
   * the host has no seam at the start of a run (iteration_start).
   */
  handoff?: (items: SteeringItem[], running: boolean) => void;
  /** Writes drained audit_only items where no model request reads them (pi: a custom session entry). */
  audit?: (items: SteeringItem[], seam: LoopSeam | "pi_queue", iteration: number) => void;
}

/** A seam's answer (agent-core's `SeamAnswer`), with how many of its messages (the last ones) are inbox notes. */
export interface BridgeSeamAnswer extends SeamAnswer {
  messages: SeamMessage[];
  inboxDelivered: number;
  settled: (kept: boolean) => void;
}

export interface SteeringBridgeOptions {
  sessionId: string;
  cwd: string;
  queue?: SteeringQueue;
  host?: BridgeHost;
}

type Listener<T> = (value: T) => void;

/**
 * One session's steering state: its queue, drained through an agent-core `CheckpointRegistry` (a bridge source
 * asked once per mode in the catalog's order, an inbox source at pre/post compact), plus what hosts ask about the
 * running loop (iteration, tool calls in flight) and its host (cancel, pi's own queue, audit records). extension.ts
 * feeds it pi's events; the socket endpoint and other extensions call it.
 */
export class SteeringBridge {
  readonly sessionId: string;
  readonly cwd: string;
  readonly queue: SteeringQueue;
  readonly registry = new CheckpointRegistry();
  readonly tools = new ToolTracker();
  /** The loop seams this bridge is drained at. */
  readonly seams: readonly LoopSeam[];
  readonly #host: BridgeHost;
  /** Ids the drain running now handed over (confirmed or reopened once the host knows what pi kept). */
  #handed: string[] = [];
  #running = false;
  #iteration = 0;
  #lastSeam: LoopSeam | undefined;
  /** Inbox notes the inbox source handed over in the drain running now. */
  #inboxDrained = 0;
  /** The last drain's seam and its inbox notes, until the loop reports that pass (`observe`). */
  #lastDrain: { kind: LoopSeam; iteration: number; inbox: number } | undefined;
  readonly #checkpointListeners = new Set<Listener<SteeringCheckpoint>>();

  constructor(options: SteeringBridgeOptions) {
    this.sessionId = options.sessionId;
    this.cwd = options.cwd;
    this.queue = options.queue ?? new SteeringQueue();
    this.#host = options.host ?? {};
    this.seams = this.#host.seams ?? LOOP_SEAMS;
    this.registry.registerDrainSource({
      name: "steering-bridge",
      channel: "bridge",
      drain: ({ mode, kind, iteration }) => {
        if (mode === "audit_only" && this.#host.audit) {
          // Audit records never become loop messages: no model request (chat, compaction, summary) can carry them.
          const items = this.queue.takeMode(mode, kind, iteration);
          if (items.length > 0) this.#host.audit(items, kind, iteration);
          return [];
        }
        const items = this.#hand((item) => item.channel === "bridge" && item.mode === mode, kind, iteration);
        return items.map((item) => ({
          message: renderItem(item, kind, iteration) as unknown as AgentMessage,
          mode: item.mode!,
        }));
      },
    });
    this.registry.registerDrainSource({
      name: "steering-inbox",
      channel: "inbox",
      drain: ({ kind, iteration }) => {
        const notes = this.#hand((item) => item.channel === "inbox", kind, iteration);
        this.#inboxDrained += notes.length;
        return notes.map((item) => ({ message: renderItem(item, kind, iteration) as unknown as AgentMessage }));
      },
    });
  }

  /**
   * Hand to pi's own queue what no seam of this host takes now (`BridgeHost.handoff`): at accept, at session start
   * and at each start and end of a run. False when the host has no hand-over.
   */
  handOff(): boolean {
    if (!this.#host.handoff) return false;
    const now = (item: SteeringItem) => this.#handsOver(item);
    const items = this.queue.size > 0 ? this.queue.takeWhere(now, "pi_queue", this.#iteration) : [];
    if (items.length > 0) this.#host.handoff(items, this.#running);
    return true;
  }

  #handsOver(item: SteeringItem): boolean {
    // Between runs an item waits (pending, in the journal) for the next run's iteration_start where the host has it.
    if (!this.#running) return !this.seams.includes("iteration_start");
    return !this.seams.some((seam) => {
      const policy = SEAM_DRAIN_POLICY[seam];
      return item.channel === "inbox" ? policy.inbox : policy.modes.includes(item.mode as DeliveryMode);
    });
  }

  /** Items of one drain, handed over until the host says whether pi kept them (`BridgeSeamAnswer.settled`). */
  #hand(match: (item: SteeringItem) => boolean, kind: LoopSeam, iteration: number): SteeringItem[] {
    const items = this.queue.hand(match, kind, iteration);
    for (const item of items) this.#handed.push(item.id);
    return items;
  }

  /** Queue an item (or hand it to pi on stock pi); throws SteeringInputError on bad input. */
  inject(input: SteeringItemInput): InjectResult {
    const { item, replaced, duplicate } = this.queue.enqueue(input);
    if (duplicate) return { id: item.id, duplicate: true };
    const result: InjectResult = { id: item.id };
    if (replaced !== undefined) result.replaced = replaced;
    if (this.handOff() && this.queue.settledState(item.id) !== undefined) result.handedToPi = true;
    return result;
  }

  revoke(id: string): RevokeResult {
    return this.queue.revoke(id);
  }

  pending(): SteeringItem[] {
    return this.queue.pending();
  }

  onAck(listener: Listener<Ack>): () => void {
    return this.queue.onAck(listener);
  }

  onCheckpoint(listener: Listener<SteeringCheckpoint>): () => void {
    this.#checkpointListeners.add(listener);
    return () => this.#checkpointListeners.delete(listener);
  }

  /**
   * The drain phase of one seam (agent-core's checkpoint handler): at loop_exit the leftover policy runs first
   * (discard, demote to audit, or carry), then the registry drains what the catalog allows at this seam, in mode
   * order, then the inbox. The items are handed over, acknowledged once the host says pi kept them (`settled(true)`)
   * or pending again when it did not. The bridge remembers how many inbox notes it handed over, for the pass's
   * record (`observe`).
   */
  async checkpoint({ kind, iteration, toolCalls }: SeamRequest): Promise<BridgeSeamAnswer> {
    if (kind === "loop_exit") this.queue.settleLeftovers();
    this.#inboxDrained = 0;
    const handed: string[] = [];
    this.#handed = handed;
    const pass: CheckpointPass = await this.registry.checkpoint(kind, { iteration, toolCalls: toolCalls as never });
    this.#handed = [];
    const inboxDelivered = this.#inboxDrained;
    this.#lastDrain = { kind, iteration, inbox: inboxDelivered };
    return {
      messages: pass.messages as unknown as SeamMessage[],
      inboxDelivered,
      skipToolDispatch: pass.skipToolDispatch === true,
      ...(pass.skipReason !== undefined && { skipReason: pass.skipReason }),
      settled: (kept) => (kept ? this.queue.confirm(handed) : this.queue.reopen(handed)),
    };
  }

  /** One seam's drain, its items acknowledged delivered at once (a host whose loop always keeps them). */
  async drain(
    kind: LoopSeam,
    iteration: number,
    toolCalls: readonly { id: string; name: string }[] = [],
  ): Promise<SeamDeliveries> {
    const { settled, ...answer } = await this.checkpoint({ kind, iteration, toolCalls });
    settled(true);
    const messages = answer.messages as unknown as AgentMessage[];
    return { ...answer, messages, skipToolDispatch: answer.skipToolDispatch === true };
  }

  /**
   * Record a seam pass as the loop reported it (pi's loop_checkpoint), with the inbox notes of this bridge's drain
   * at that pass counted apart, and tell subscribers. Returns the pass as the bridge reports it.
   */
  observe(pass: LoopPass): SteeringCheckpoint {
    const drained = this.#lastDrain;
    this.#lastDrain = undefined;
    const inbox = drained?.kind === pass.kind && drained.iteration === pass.iteration ? drained.inbox : 0;
    const { iteration, kind, dispatchSkipped } = pass;
    const checkpoint = {
      iteration,
      kind,
      delivered: Math.max(0, pass.delivered - inbox),
      inboxDelivered: inbox,
      dispatchSkipped,
    };
    this.#iteration = iteration;
    this.#lastSeam = kind;
    for (const listener of this.#checkpointListeners) {
      try {
        listener(checkpoint);
      } catch {
        // Observers never disturb the loop.
      }
    }
    return checkpoint;
  }

  setRunning(running: boolean): void {
    this.#running = running;
    if (!running) this.tools.clear();
    this.handOff();
  }

  async cancelToolCall(callId: string, options: CancelToolCallOptions = {}): Promise<CancelToolCallResult> {
    const backend = this.#host.cancel;
    if (!backend) {
      const why = "cancelling a tool call in flight needs steering-bridge's cancellable tools";
      throw new UnavailableError("cancel_tool_call", `${why}, which this host was not given`);
    }
    // Either pi's id or the provider's own (`call_…` of a Responses `call_…|fc_…`) names the call.
    const running = backend.inFlight().map((call) => call.callId);
    const id = resolveCallId(callId, running) ?? callId;
    const args = this.tools.argsOf(id);
    const result = await backend.cancel(id, options);
    if ((result.status === "cancelled" || result.status === "timeout") && result.tool !== undefined) {
      // What the abort signal could not reach (a read blocked on a FIFO) is released, so the work really stops.
      releaseCancelledCall(result.tool, args, this.cwd);
    }
    return result;
  }

  status(): BridgeStatus {
    const missing = LOOP_SEAMS.filter((seam) => !this.seams.includes(seam));
    return {
      sessionId: this.sessionId,
      pid: process.pid,
      cwd: this.cwd,
      running: this.#running,
      iteration: this.#iteration,
      toolCallsInFlight: this.#host.cancel ? this.#host.cancel.inFlight() : this.tools.list(),
      pending: this.queue.pending().length,
      features: { seams: missing.length === 0, cancel: this.#host.cancel !== undefined },
      ...(missing.length > 0 && { missingSeams: missing }),
      ...(this.#lastSeam && { lastSeam: this.#lastSeam }),
    };
  }

  dispose(): void {
    this.queue.dispose();
    this.#checkpointListeners.clear();
  }
}
