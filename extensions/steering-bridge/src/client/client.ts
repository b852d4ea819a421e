import { connect, type Socket } from "node:net";
import { isJSONRPCRequest, isJSONRPCResponse, JSONRPCClient, type JSONRPCResponse } from "json-rpc-2.0";
import { LineFramer, MAX_FRAME_BYTES } from "../endpoint/framing.ts";
import {
  ERROR_CODES,
  METHODS,
  NOTIFICATIONS,
  type SteeringMethods,
  type SteeringNotifications,
} from "../endpoint/protocol.ts";

/** How long a request waits for its answer unless told otherwise (a suspended or stuck pi never answers). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** A JSON-RPC error answered by the session (code and message as sent). */
export class SteeringRpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "SteeringRpcError";
    this.code = code;
    this.data = data;
  }
}

type Params<M extends keyof SteeringMethods> = SteeringMethods[M]["params"];
type Result<M extends keyof SteeringMethods> = SteeringMethods[M]["result"];
type NotificationListener<N extends keyof SteeringNotifications> = (params: SteeringNotifications[N]) => void;

/**
 * Typed client of a session's steering socket (what `pi-steer` uses). One connection; requests may overlap;
 * notifications (`steer/checkpoint`, `steer/ack`) arrive after `subscribe()`.
 */
export class SteeringClient {
  readonly #socket: Socket;
  readonly #rpc: JSONRPCClient;
  readonly #listeners = new Map<string, Set<(params: never) => void>>();
  readonly #closeListeners = new Set<(error?: Error) => void>();
  readonly #socketPath: string;
  readonly #requestTimeoutMs: number;
  /** The server's own error about this connection (busy, timed out), answered with id null. */
  #connectionError: SteeringRpcError | undefined;

  private constructor(socket: Socket, socketPath: string, requestTimeoutMs: number) {
    this.#socket = socket;
    this.#socketPath = socketPath;
    this.#requestTimeoutMs = requestTimeoutMs;
    this.#rpc = new JSONRPCClient((request) => {
      if (socket.destroyed) throw new Error("steering socket is closed");
      socket.write(`${JSON.stringify(request)}\n`);
    });
    const framer = new LineFramer(MAX_FRAME_BYTES);
    socket.on("data", (chunk: Buffer) => {
      for (const event of framer.push(chunk)) {
        if (event.type !== "frame") continue;
        let message: unknown;
        try {
          message = JSON.parse(event.text);
        } catch {
          continue;
        }
        this.#receive(message);
      }
    });
    let failure: Error | undefined;
    socket.on("error", (error) => {
      failure = error;
    });
    socket.on("close", () => {
      const reason = this.#connectionError?.message ?? (failure ? failure.message : undefined);
      this.#rpc.rejectAllPendingRequests(`steering socket closed${reason ? `: ${reason}` : ""}`);
      for (const listener of this.#closeListeners) listener(failure);
    });
  }

  /**
   * Connect to a session's socket (see `findSessions` / `resolveSession`). A full accept queue (EAGAIN, many
   * clients at once) is retried with a short backoff until `timeoutMs`.
   */
  static async connect(
    socketPath: string,
    options: { timeoutMs?: number; requestTimeoutMs?: number } = {},
  ): Promise<SteeringClient> {
    const deadline = Date.now() + (options.timeoutMs ?? 5000);
    for (let attempt = 0; ; attempt++) {
      try {
        const socket = await connectOnce(socketPath, Math.max(1, deadline - Date.now()));
        return new SteeringClient(socket, socketPath, options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "EAGAIN" || Date.now() >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(5 * 2 ** attempt, 100)));
      }
    }
  }

  /**
   * Call one method, typed by name. Rejects with SteeringRpcError for a JSON-RPC error answer (also when the
   * server turned the connection away: `-32004` busy, `-32005` timed out), and with a RequestTimeoutError when no
   * answer came within the request timeout (default 10 s, or `timeoutMs`).
   */
  async call<M extends keyof SteeringMethods>(
    method: M,
    params: Params<M>,
    options: { timeoutMs?: number } = {},
  ): Promise<Result<M>> {
    const timeoutMs = options.timeoutMs ?? this.#requestTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RequestTimeoutError(method, timeoutMs, this.#socketPath)), timeoutMs);
      timer.unref?.();
    });
    let response: JSONRPCResponse;
    try {
      response = await Promise.race([
        this.#rpc.requestAdvanced({ jsonrpc: "2.0", id: this.#nextId++, method, params }),
        timedOut,
      ]);
    } catch (error) {
      if (this.#connectionError) throw this.#connectionError;
      throw error;
    } finally {
      clearTimeout(timer);
    }
    if (response.error) throw new SteeringRpcError(response.error.code, response.error.message, response.error.data);
    return response.result as Result<M>;
  }
  #nextId = 1;

  inject(params: Params<"steer/inject">) {
    return this.call(METHODS.inject, params);
  }
  remind(params: Params<"steer/remind">) {
    return this.call(METHODS.remind, params);
  }
  postEvent(params: Params<"steer/postEvent">) {
    return this.call(METHODS.postEvent, params);
  }
  /** The request waits for the cancel's own timeout (default 5 s) plus the request timeout. */
  cancelToolCall(params: Params<"steer/cancelToolCall">) {
    return this.call(METHODS.cancelToolCall, params, {
      timeoutMs: (params.timeoutMs ?? 5000) + this.#requestTimeoutMs,
    });
  }
  /** One page of pending items (content previews); pass `nextCursor` as `cursor` for the next. */
  pending(params: Params<"steer/pending"> = {}) {
    return this.call(METHODS.pending, params);
  }
  revoke(id: string) {
    return this.call(METHODS.revoke, { id });
  }
  status() {
    return this.call(METHODS.status, {});
  }
  subscribe(params: Params<"steer/subscribe"> = {}) {
    return this.call(METHODS.subscribe, params);
  }

  /** Listen to a notification (after `subscribe()`); returns an unsubscribe function. */
  on<N extends keyof SteeringNotifications>(notification: N, listener: NotificationListener<N>): () => void {
    let set = this.#listeners.get(notification);
    if (!set) {
      set = new Set();
      this.#listeners.set(notification, set);
    }
    set.add(listener as (params: never) => void);
    return () => set.delete(listener as (params: never) => void);
  }

  /** Called once when the connection ends (the session exited, or `close()`). */
  onClose(listener: (error?: Error) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /** Send raw bytes (tests of the server's handling of bad input). */
  writeRaw(data: string | Buffer): void {
    this.#socket.write(data);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#socket.destroyed) return resolve();
      this.#socket.once("close", () => resolve());
      this.#socket.end();
      setTimeout(() => this.#socket.destroy(), 1000).unref();
    });
  }

  #receive(message: unknown): void {
    const error = (message as { id?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } })?.error;
    if (
      (message as { id?: unknown })?.id === null &&
      (error?.code === ERROR_CODES.busy || error?.code === ERROR_CODES.timeout)
    ) {
      this.#connectionError = new SteeringRpcError(error.code, String(error.message), error.data);
      return;
    }
    if (Array.isArray(message) || isJSONRPCResponse(message)) {
      this.#rpc.receive(message as JSONRPCResponse);
      return;
    }
    if (isJSONRPCRequest(message) && message.id === undefined) {
      const known = message.method === NOTIFICATIONS.ack || message.method === NOTIFICATIONS.checkpoint;
      if (!known) return;
      for (const listener of this.#listeners.get(message.method) ?? []) listener(message.params as never);
    }
  }
}

/** No answer within the request timeout: the session's pi is suspended, stuck, or not the pi it claims to be. */
export class RequestTimeoutError extends Error {
  readonly method: string;
  readonly timeoutMs: number;
  constructor(method: string, timeoutMs: number, socketPath: string) {
    super(
      `no answer to ${method} within ${timeoutMs} ms from ${socketPath}: the pi process may be suspended (Ctrl-Z) or stuck`,
    );
    this.name = "RequestTimeoutError";
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Connect, run `work`, close; a connection the server turned away as busy (`-32004`, all its connections in use)
 * is retried with a short backoff until `timeoutMs` (default 10 s). Busy means the request was never read, so the
 * retry is safe for every method.
 */
export async function withSteeringClient<T>(
  socketPath: string,
  work: (client: SteeringClient) => Promise<T>,
  options: { timeoutMs?: number; requestTimeoutMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (let attempt = 0; ; attempt++) {
    const connectOptions: { timeoutMs: number; requestTimeoutMs?: number } = {
      timeoutMs: Math.max(1, deadline - Date.now()),
    };
    if (options.requestTimeoutMs !== undefined) connectOptions.requestTimeoutMs = options.requestTimeoutMs;
    const client = await SteeringClient.connect(socketPath, connectOptions);
    try {
      return await work(client);
    } catch (error) {
      const busy = error instanceof SteeringRpcError && error.code === ERROR_CODES.busy;
      if (!busy || Date.now() >= deadline) throw error;
    } finally {
      await client.close();
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(10 * 2 ** attempt, 200) * (0.5 + Math.random())));
  }
}

function connectOnce(socketPath: string, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`timed out connecting to ${socketPath}`));
    }, timeoutMs);
    const onError = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    socket.once("error", onError);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.off("error", onError);
      resolve(socket);
    });
  });
}
