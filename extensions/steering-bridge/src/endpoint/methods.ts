import { type SteeringBridge, UnavailableError } from "../bridge/steering-bridge.ts";
import { type Checked, errorResponse, parseFrame, type RpcResponse, serializeReply } from "../protocol/envelope.ts";
import {
  ERROR_CODES,
  METHODS,
  type Method,
  type PostEventParams,
  parseParams,
  SteeringRpcError,
} from "../protocol/protocol.ts";
import { PendingCursorError, pagePending } from "../queue/pending-page.ts";
import { QueueFullError, SteeringInputError } from "../queue/steering-queue.ts";

/** What a method may change on the connection that called it. */
export interface Caller {
  checkpoints: boolean;
  acks: boolean;
}

type Handler<M> = M extends Method<infer P, infer R> ? (params: P, caller: Caller) => R | Promise<R> : never;
/** One handler per descriptor: a method added to METHODS does not compile until it is served. */
export type Handlers = { [K in keyof typeof METHODS]: Handler<(typeof METHODS)[K]> };

/** The socket's methods on one bridge: each takes the params its descriptor checked. */
export function bridgeHandlers(bridge: SteeringBridge): Handlers {
  const queue =
    (kind: "message" | "reminder" | "note") =>
    <P extends PostEventParams>(params: P) =>
      bridge.inject({ ...params, kind, source: params.source ?? "socket" });
  return {
    inject: queue("message"),
    remind: queue("reminder"),
    postEvent: queue("note"),
    cancelToolCall: ({ callId, ...options }) => bridge.cancelToolCall(callId, options),
    pending: (params) => pagePending(bridge.queue, params),
    revoke: ({ id }) => bridge.revoke(id),
    status: () => bridge.status(),
    subscribe: (params, caller) => {
      caller.checkpoints = params.checkpoints ?? true;
      caller.acks = params.acks ?? true;
      return { checkpoints: caller.checkpoints, acks: caller.acks };
    },
  };
}

type Dispatch = (params: unknown, caller: Caller) => unknown;

/** The method table of the server, by wire name, built from the descriptors (params checked before the handler). */
export function methodTable(handlers: Handlers): ReadonlyMap<string, Dispatch> {
  return new Map(
    (Object.keys(METHODS) as (keyof typeof METHODS)[]).map((key): [string, Dispatch] => {
      const run = handlers[key] as (params: unknown, caller: Caller) => unknown;
      return [METHODS[key].name, (params, caller) => run(parseParams(METHODS[key] as Method, params), caller)];
    }),
  );
}

/** Answer one frame: the reply line, or undefined for notifications only. Never rejects on client input. */
export async function answerFrame(text: string, table: ReadonlyMap<string, Dispatch>, caller: Caller) {
  const frame = parseFrame(text);
  if (frame.type === "error") return serializeReply(frame.response, null);
  if (frame.type === "single") {
    const response = await answer(frame.message, table, caller);
    return response ? serializeReply(response, response.id) : undefined;
  }
  // A batch is answered with an array (even of one), or not at all when it held only notifications.
  const responses = (await Promise.all(frame.messages.map((m) => answer(m, table, caller)))).filter(
    (r): r is RpcResponse => r !== null,
  );
  return responses.length > 0 ? serializeReply(responses, null) : undefined;
}

/** Answer one checked request: its response, or null for a notification. Never rejects. */
async function answer(
  message: Checked,
  table: ReadonlyMap<string, Dispatch>,
  caller: Caller,
): Promise<RpcResponse | null> {
  if ("error" in message) return message.error;
  const { id, method, params } = message.request;
  try {
    const run = table.get(method);
    if (!run) {
      const why = `Method not found: ${JSON.stringify(method)}; expected one of ${[...table.keys()].join(", ")}`;
      throw new SteeringRpcError(ERROR_CODES.methodNotFound, why);
    }
    const result = await run(params, caller);
    return id === undefined ? null : { jsonrpc: "2.0", id, result };
  } catch (error) {
    if (id === undefined) return null;
    const { code, message, data } = toRpcError(error);
    return errorResponse(id, code, message, data);
  }
}

/** The JSON-RPC error for what a method threw: the bridge's and the queue's refusals keep their meaning. */
function toRpcError(error: unknown): SteeringRpcError {
  if (error instanceof SteeringRpcError) return error;
  if (error instanceof SteeringInputError || error instanceof PendingCursorError) {
    const path = error instanceof SteeringInputError ? error.field : "cursor";
    return new SteeringRpcError(ERROR_CODES.invalidParams, `Invalid params: ${error.message}`, {
      issues: [{ path, message: error.message }],
    });
  }
  if (error instanceof QueueFullError) {
    return new SteeringRpcError(ERROR_CODES.queueFull, error.message, { limit: error.limit, max: error.max });
  }
  if (error instanceof UnavailableError) {
    return new SteeringRpcError(ERROR_CODES.unavailable, error.message, { feature: error.feature });
  }
  const why = String((error as Error)?.message ?? error);
  return new SteeringRpcError(ERROR_CODES.internalError, `Internal error: ${why}`);
}
