import type {
  AgentMessage,
  AgentToolCall,
  CheckpointHook,
  CheckpointOutcome,
  CheckpointRequest,
  LoopCheckpoint,
} from "@earendil-works/pi-agent-core";
import {
  type DeliveryMode,
  type LoopSeam,
  resolveSeamSelector,
  SEAM_DRAIN_POLICY,
  type SeamSelector,
} from "./catalog.ts";

/** One item a drain source hands to the loop. */
export interface Delivery {
  message: AgentMessage;
  /** Which bridge mode it was queued with; inbox deliveries leave it out. */
  mode?: DeliveryMode;
}

/** What a drain source is asked for at one seam. */
export interface DrainRequest {
  kind: LoopSeam;
  iteration: number;
  /** The bridge modes this seam drains, in drain order. Empty for inbox-only seams. */
  modes: readonly DeliveryMode[];
  toolCalls: readonly AgentToolCall[];
}

/**
 * A queue the loop drains at its seams. A "bridge" source is asked once per mode the seam drains, in the
 * catalog's order (interrupt_immediate, finish_step, audit_only); an "inbox" source only at inbox seams.
 */
export interface DrainSource {
  readonly name: string;
  readonly channel: "bridge" | "inbox";
  drain(request: DrainRequest & { mode?: DeliveryMode }): readonly Delivery[] | Promise<readonly Delivery[]>;
}

/** Observer of every checkpoint pass; its return value is ignored, and its failures never reach the loop. */
export type CheckpointObserver = (checkpoint: LoopCheckpoint) => void | Promise<void>;

/**
 * The result of one pass, as the patched loop expects it: the messages to deliver (the bridge's first, in mode
 * order, then the inbox's) and whether to skip the pending tool batch. The loop reports the pass itself.
 */
export interface CheckpointPass extends CheckpointOutcome {
  messages: AgentMessage[];
  skipToolDispatch: boolean;
}

/** Why the batch was skipped when an interrupt lands at pre_tool_dispatch. */
export const INTERRUPT_SKIP_REASON = "interrupt_immediate";

/**
 * Registry behind every loop seam: drain sources feed deliveries in, observer hooks watch each pass.
 * `checkpoint(kind)` is the single place where the drain policy of the catalog is applied, so the loop itself
 * only calls it. Pass `registry.loopHook` as the `checkpoint` option of the patched `Agent` or `agentLoop`.
 */
export class CheckpointRegistry {
  readonly #sources: DrainSource[] = [];
  readonly #observers: { kinds: ReadonlySet<LoopSeam>; handler: CheckpointObserver }[] = [];
  readonly #onObserverError: (error: unknown, checkpoint: LoopCheckpoint) => void;

  constructor(options: { onObserverError?: (error: unknown, checkpoint: LoopCheckpoint) => void } = {}) {
    this.#onObserverError = options.onObserverError ?? (() => {});
  }

  /** Add a queue to drain; returns a function that removes it. */
  registerDrainSource(source: DrainSource): () => void {
    this.#sources.push(source);
    return () => {
      const index = this.#sources.indexOf(source);
      if (index !== -1) this.#sources.splice(index, 1);
    };
  }

  /** Watch the seams named by `kinds` (one, several, or "*"); throws on a name outside the catalog. */
  registerCheckpointHook(kinds: SeamSelector, handler: CheckpointObserver): () => void {
    const entry = { kinds: resolveSeamSelector(kinds), handler };
    this.#observers.push(entry);
    return () => {
      const index = this.#observers.indexOf(entry);
      if (index !== -1) this.#observers.splice(index, 1);
    };
  }

  /** Run one checkpoint pass: drain in catalog order, decide the skip, emit one record to the observers. */
  async checkpoint(
    kind: LoopSeam,
    request: { iteration: number; toolCalls?: readonly AgentToolCall[] } = { iteration: 0 },
  ): Promise<CheckpointPass> {
    const policy = SEAM_DRAIN_POLICY[kind];
    const toolCalls = request.toolCalls ?? [];
    const base: DrainRequest = { kind, iteration: request.iteration, modes: policy.modes, toolCalls };
    const bridge: Delivery[] = [];
    for (const mode of policy.modes) {
      for (const source of this.#sources) {
        if (source.channel === "bridge") appendAll(bridge, await source.drain({ ...base, mode }));
      }
    }
    const inbox: Delivery[] = [];
    if (policy.inbox) {
      for (const source of this.#sources) {
        if (source.channel === "inbox") appendAll(inbox, await source.drain(base));
      }
    }
    const dispatchSkipped = decideDispatchSkip(kind, bridge, toolCalls);
    const messages: AgentMessage[] = [];
    for (const delivery of bridge) messages.push(delivery.message);
    for (const delivery of inbox) messages.push(delivery.message);
    await this.#notify({ iteration: request.iteration, kind, delivered: messages.length, dispatchSkipped });
    return {
      messages,
      skipToolDispatch: dispatchSkipped,
      ...(dispatchSkipped ? { skipReason: INTERRUPT_SKIP_REASON } : {}),
    };
  }

  /** The `checkpoint` option for the patched loop, bound to this registry. */
  readonly loopHook: CheckpointHook = (request: CheckpointRequest) =>
    this.checkpoint(request.kind, { iteration: request.iteration, toolCalls: request.toolCalls });

  async #notify(record: LoopCheckpoint): Promise<void> {
    for (const observer of this.#observers) {
      if (!observer.kinds.has(record.kind)) continue;
      try {
        await observer.handler(record);
      } catch (error) {
        this.#onObserverError(error, record);
      }
    }
  }
}

/** Append without spreading into arguments: a seam may drain tens of thousands of items at once. */
function appendAll(target: Delivery[], items: readonly Delivery[]): void {
  for (const item of items) target.push(item);
}

/**
 * At pre_tool_dispatch, anything drained means the host wants to be heard before the next tool runs:
 * skip the batch. With no tool calls pending there is nothing to skip (the delivery still forces one more turn).
 */
export function decideDispatchSkip(
  kind: LoopSeam,
  delivered: readonly Delivery[],
  toolCalls: readonly AgentToolCall[],
): boolean {
  return kind === "pre_tool_dispatch" && delivered.length > 0 && toolCalls.length > 0;
}
