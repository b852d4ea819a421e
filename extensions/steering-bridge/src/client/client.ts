import { connect, type Socket } from "node:net";
import { LineFramer, MAX_FRAME_BYTES } from "../protocol/framing.ts";
import {
  type CancelParams,
  CancelToolCall,
  ERROR_CODES,
  Inject,
  type InjectParams,
  type Method,
  type Notification,
  type NotificationName,
  type NotificationParams,
  Pending,
  type PendingParams,
  PostEvent,
  type PostEventParams,
  Remind,
  Revoke,
  Status,
  SteeringRpcError,
  Subscribe,
  type SubscribeParams,
} from "../protocol/protocol.ts";

export { SteeringRpcError } from "../protocol/protocol.ts";

/** How long a request waits for its answer unless told otherwise (a suspended or stuck pi never answers). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

interface Waiting {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * Typed client of a session's steering socket (what `pi-steer` uses): `request(Inject, params)` with any method
 * descriptor of the protocol, or the shorthands below. One connection; requests may overlap; notifications
 * (`steer/checkpoint`, `steer/ack`) arrive after `subscribe()`.
 */
export class SteeringClient {
  readonly #socket: Socket;
  readonly #waiting = new Map<number, Waiting>();
  readonly #listeners = new Map<string, Set<(params: never) => void>>();
  readonly #closeListeners = new Set<(error?: Error) => void>();
  readonly #socketPath: string;
  readonly #requestTimeoutMs: number;
  #nextId = 1;
  /** The server's own error about this connection (busy, timed out), answered with id null. */
  #connectionError: SteeringRpcError | undefined;
  #closedError: Error | undefined;

  private constructor(socket: Socket, socketPath: string, requestTimeoutMs: number) {
    this.#socket = socket;
    this.#socketPath = socketPath;
    this.#requestTimeoutMs = requestTimeoutMs;
    const framer = new LineFramer(MAX_FRAME_BYTES);
    socket.on("data", (chunk: Buffer) => {
      for (const event of framer.push(chunk)) {
        if (event.type !== "frame") continue;
        try {
          this.#receive(JSON.parse(event.text));
        } catch {
          // Not JSON: no request can be matched to it.
        }
      }
    });
    let failure: Error | undefined;
    socket.on("error", (error) => {
      failure = error;
    });
    socket.on("close", () => {
      const reason = this.#connectionError?.message ?? failure?.message;
      this.#closedError = this.#connectionError ?? new Error(`steering socket closed${reason ? `: ${reason}` : ""}`);
      for (const waiting of this.#waiting.values()) waiting.reject(this.#closedError);
      this.#waiting.clear();
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
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN" || Date.now() >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(5 * 2 ** attempt, 100)));
      }
    }
  }

  /**
   * Call one method, typed by its descriptor. Rejects with SteeringRpcError for a JSON-RPC error answer (also when
   * the server turned the connection away: `-32004` busy, `-32005` timed out), and with a RequestTimeoutError when
   * no answer came within the request timeout (default 10 s, plus what the method waits, or `timeoutMs`).
   */
  request<P, R>(method: Method<P, R>, params: P, options: { timeoutMs?: number } = {}): Promise<R> {
    const timeoutMs = options.timeoutMs ?? this.#requestTimeoutMs + (method.waitsMs?.(params) ?? 0);
    return new Promise<R>((resolve, reject) => {
      if (this.#closedError || this.#socket.destroyed) {
        return reject(this.#closedError ?? new Error("steering socket is closed"));
      }
      const id = this.#nextId++;
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new RequestTimeoutError(method.name, timeoutMs, this.#socketPath));
      }, timeoutMs);
      timer.unref?.();
      const settle =
        <T>(done: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          this.#waiting.delete(id);
          done(value);
        };
      this.#waiting.set(id, { resolve: settle(resolve as (result: unknown) => void), reject: settle(reject) });
      this.#socket.write(`${JSON.stringify({ jsonrpc: "2.0", id, method: method.name, params })}\n`);
    });
  }

  // Shorthands, one per method of the protocol.
  readonly inject = (params: InjectParams) => this.request(Inject, params);
  readonly remind = (params: InjectParams) => this.request(Remind, params);
  readonly postEvent = (params: PostEventParams) => this.request(PostEvent, params);
  readonly cancelToolCall = (params: CancelParams) => this.request(CancelToolCall, params);
  /** One page of pending items (content previews); pass `nextCursor` as `cursor` for the next. */
  readonly pending = (params: PendingParams = {}) => this.request(Pending, params);
  readonly revoke = (id: string) => this.request(Revoke, { id });
  readonly status = () => this.request(Status, {});
  readonly subscribe = (params: SubscribeParams = {}) => this.request(Subscribe, params);

  /** Listen to a notification, by descriptor or name (after `subscribe()`); returns an unsubscribe function. */
  on<N extends NotificationName>(
    notification: N | Notification<unknown, N>,
    listener: (params: NotificationParams<N>) => void,
  ): () => void {
    const name = typeof notification === "string" ? notification : notification.name;
    const set = this.#listeners.get(name) ?? new Set();
    this.#listeners.set(name, set);
    set.add(listener as (params: never) => void);
    return () => set.delete(listener as (params: never) => void);
  }

  /** Called once when the connection ends (the session exited, or `close()`). */
  onClose(listener: (error?: Error) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#socket.destroyed) return resolve();
      this.#socket.once("close", () => resolve());
      this.#socket.end();
      setTimeout(() => this.#socket.destroy(), 1000).unref();
    });
  }

  #receive(message: { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: RpcError }): void {
    const { id, error } = message;
    if (id === null && (error?.code === ERROR_CODES.busy || error?.code === ERROR_CODES.timeout)) {
      this.#connectionError = new SteeringRpcError(error.code, String(error.message), error.data);
    } else if (typeof id === "number") {
      const waiting = this.#waiting.get(id);
      if (error) waiting?.reject(new SteeringRpcError(Number(error.code), String(error.message), error.data));
      else waiting?.resolve(message.result);
    } else if (id === undefined && typeof message.method === "string") {
      for (const listener of this.#listeners.get(message.method) ?? []) listener(message.params as never);
    }
  }
}

type RpcError = { code?: unknown; message?: unknown; data?: unknown };

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
    const timeoutMs = Math.max(1, deadline - Date.now());
    const client = await SteeringClient.connect(socketPath, { timeoutMs, requestTimeoutMs: options.requestTimeoutMs });
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
