import { chmodSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import {
  createJSONRPCErrorResponse,
  createJSONRPCNotification,
  JSONRPCErrorException,
  type JSONRPCResponse,
  JSONRPCServer,
} from "json-rpc-2.0";
import type { z } from "zod";
import { type SteeringBridge, UnavailableError } from "../bridge/steering-bridge.ts";
import { PendingCursorError, pagePending } from "../queue/pending-page.ts";
import { QueueFullError, SteeringInputError } from "../queue/steering-queue.ts";
import { type Checked, parseFrame, serializeReply } from "./envelope.ts";
import { type FrameEvent, LineFramer, MAX_FRAME_BYTES } from "./framing.ts";
import {
  checkReplaceable,
  ensurePrivateDir,
  MAX_SOCKET_PATH,
  runtimeSocketDir,
  sessionPaths,
  steeringDir,
} from "./paths.ts";
import {
  CancelParams,
  describeIssues,
  EmptyParams,
  ERROR_CODES,
  InjectParams,
  type InjectResult,
  METHODS,
  NOTIFICATIONS,
  PendingParams,
  PostEventParams,
  RevokeParams,
  SubscribeParams,
} from "./protocol.ts";
import {
  isSessionLive,
  listSessions,
  pidStartTime,
  readSessionInfo,
  removeQuietly,
  type SessionInfo,
  writeSessionInfo,
} from "./session-registry.ts";

/** Pending connections the kernel may hold (capped by net.core.somaxconn): bursts of clients connect at once. */
const LISTEN_BACKLOG = 4096;

/** A client that stops reading is cut off once this much output waits for it. */
const MAX_BUFFERED_OUTPUT = 8 * 1024 * 1024;

/**
 * What one session's endpoint lets clients hold (README "Limits"). The connection cap stays far below any
 * descriptor limit, so that pi's own work (model calls, tools) always has descriptors left.
 */
export const ENDPOINT_LIMITS = {
  /** Open connections at once; one more is told `-32004` and closed. */
  maxConnections: 32,
  /** A connection with no request running and no subscription is closed after this long without a byte. */
  idleTimeoutMs: 60_000,
  /** A frame begun must end (newline) within this long, or the connection is closed. */
  frameTimeoutMs: 10_000,
} as const;

export interface EndpointLimits {
  maxConnections?: number;
  idleTimeoutMs?: number;
  frameTimeoutMs?: number;
}

export interface EndpointOptions {
  bridge: SteeringBridge;
  /** pi's agent dir; the registry lives in `<agentDir>/steering` (the socket too, unless that path is too long). */
  agentDir: string;
  limits?: EndpointLimits;
  /** Where a socket goes whose path under the agent dir is too long; default `runtimeSocketDir()`. */
  runtimeDir?: string;
}

export interface Endpoint {
  readonly socketPath: string;
  readonly infoPath: string;
  readonly info: SessionInfo;
  /** Open client connections. */
  connections(): number;
  close(): Promise<void>;
}

interface Connection {
  socket: Socket;
  checkpoints: boolean;
  acks: boolean;
  /** Requests being answered now (a cancel may wait for its tool). */
  running: number;
}

/** Raised when another live pi process serves the session: this process must not serve or deliver it. */
export class SessionTakenError extends Error {
  readonly owner: SessionInfo;
  constructor(owner: SessionInfo) {
    super(`session ${owner.sessionId} is already served by live pi process ${owner.pid} (${owner.socket})`);
    this.name = "SessionTakenError";
    this.owner = owner;
  }
}

/**
 * The session's control endpoint: JSON-RPC 2.0 (json-rpc-2.0) over an owner-only Unix socket, one message per
 * line. Every method validates its params with zod and answers standard error codes. Every path from a byte to
 * a reply is caught at the connection: a bad frame, a hostile id or a failing reply costs that request, never the
 * agent. Connections are capped and timed out. The server is unref'd: it never keeps pi alive on its own.
 */
export async function startEndpoint(options: EndpointOptions): Promise<Endpoint> {
  const { bridge } = options;
  const limits = { ...ENDPOINT_LIMITS, ...options.limits };
  const dir = steeringDir(options.agentDir);
  ensurePrivateDir(dir);
  listSessions(dir); // removes files of dead processes
  const registryPaths = sessionPaths(dir, bridge.sessionId);
  let socketPath = registryPaths.socket;
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    const runtime = options.runtimeDir ?? runtimeSocketDir();
    ensurePrivateDir(runtime);
    socketPath = sessionPaths(runtime, bridge.sessionId).socket;
    if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
      throw new Error(
        `steering socket path is ${Buffer.byteLength(registryPaths.socket)} bytes under the agent dir and ${Buffer.byteLength(socketPath)} in ${runtime}, over the ${MAX_SOCKET_PATH}-byte limit of Unix sockets (set XDG_RUNTIME_DIR or PI_CODING_AGENT_DIR to a shorter dir)`,
      );
    }
  }
  const paths = { socket: socketPath, info: registryPaths.info };
  const owner = checkReplaceable(paths.info) ? readSessionInfo(paths.info) : undefined;
  if (owner && owner.pid !== process.pid && (await isSessionLive(owner))) throw new SessionTakenError(owner);
  for (const path of new Set([paths.socket, registryPaths.socket, paths.info, owner?.socket])) {
    if (path !== undefined && checkReplaceable(path)) removeQuietly(path);
  }

  const rpc = createRpc(bridge);
  const connections = new Set<Connection>();
  const server: Server = createServer((socket) => serveConnection(socket, rpc, connections, limits));
  server.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ path: paths.socket, backlog: LISTEN_BACKLOG }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  chmodSync(paths.socket, 0o600);
  server.unref();

  const info: SessionInfo = {
    sessionId: bridge.sessionId,
    pid: process.pid,
    cwd: bridge.cwd,
    socket: paths.socket,
    startedAt: new Date().toISOString(),
  };
  const startTime = pidStartTime(process.pid);
  if (startTime !== undefined) info.pidStartTime = startTime;
  writeSessionInfo(paths.info, info);

  const broadcast = (method: string, params: unknown, want: (c: Connection) => boolean) => {
    let line: string | undefined;
    for (const connection of connections) {
      if (!want(connection)) continue;
      line ??= serializeReply(createJSONRPCNotification(method, params), null);
      write(connection.socket, line);
    }
  };
  const offAck = bridge.onAck((ack) => broadcast(NOTIFICATIONS.ack, ack, (c) => c.acks));
  const offCheckpoint = bridge.onCheckpoint((checkpoint) =>
    broadcast(NOTIFICATIONS.checkpoint, checkpoint, (c) => c.checkpoints),
  );

  const removeFiles = () => {
    // Only our own files: a newer pi may have taken the session over.
    if (readSessionInfo(paths.info)?.pid === process.pid) removeQuietly(paths.info);
    removeQuietly(paths.socket);
  };
  process.once("exit", removeFiles);
  let closed = false;

  return {
    socketPath: paths.socket,
    infoPath: paths.info,
    info,
    connections: () => connections.size,
    async close() {
      if (closed) return;
      closed = true;
      offAck();
      offCheckpoint();
      process.off("exit", removeFiles);
      for (const connection of connections) connection.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      removeFiles();
    },
  };
}

function serveConnection(
  socket: Socket,
  rpc: JSONRPCServer<Connection>,
  connections: Set<Connection>,
  limits: Required<EndpointLimits>,
): void {
  socket.on("error", () => {});
  socket.unref();
  if (connections.size >= limits.maxConnections) {
    // Told once why, then closed at once: a flood of connections costs a descriptor for a moment each.
    const line = serializeReply(
      createJSONRPCErrorResponse(
        null,
        ERROR_CODES.busy,
        `Busy: this session's steering socket has its maximum of ${limits.maxConnections} connections open; retry shortly`,
        { max: limits.maxConnections },
      ),
      null,
    );
    socket.write(line); // a small write to a fresh Unix socket goes to the kernel at once
    socket.destroy();
    return;
  }
  const connection: Connection = { socket, checkpoints: false, acks: false, running: 0 };
  connections.add(connection);
  const framer = new LineFramer(MAX_FRAME_BYTES);
  const closeWith = (message: string, timeoutMs: number) => {
    write(socket, serializeReply(createJSONRPCErrorResponse(null, ERROR_CODES.timeout, message, { timeoutMs }), null));
    socket.end();
    setTimeout(() => socket.destroy(), 1000).unref();
  };
  let frameTimer: NodeJS.Timeout | undefined;
  const watchFrame = () => {
    if (!framer.partial) {
      if (frameTimer) clearTimeout(frameTimer);
      frameTimer = undefined;
    } else if (!frameTimer) {
      frameTimer = setTimeout(
        () =>
          closeWith(
            `Timeout: a frame was left unfinished for ${limits.frameTimeoutMs} ms (no newline); connection closed`,
            limits.frameTimeoutMs,
          ),
        limits.frameTimeoutMs,
      );
      frameTimer.unref();
    }
  };
  socket.setTimeout(limits.idleTimeoutMs, () => {
    // Subscribers may idle (they wait for notifications); so may a request that is still running.
    if (connection.running > 0 || connection.checkpoints || connection.acks) return;
    closeWith(`Timeout: idle for ${limits.idleTimeoutMs} ms; connection closed`, limits.idleTimeoutMs);
  });
  socket.on("data", (chunk: Buffer) => {
    let events: FrameEvent[];
    try {
      events = framer.push(chunk);
    } catch {
      socket.destroy();
      return;
    }
    watchFrame();
    for (const event of events) {
      if (event.type === "oversized") {
        write(
          socket,
          serializeReply(
            createJSONRPCErrorResponse(
              null,
              ERROR_CODES.invalidRequest,
              `Invalid Request: frame exceeds the ${MAX_FRAME_BYTES}-byte limit (1 MiB); it is skipped up to its newline`,
            ),
            null,
          ),
        );
        continue;
      }
      connection.running++;
      answerFrame(event.text, rpc, connection)
        .then(
          (line) => {
            if (line !== undefined) write(socket, line);
          },
          () => {
            write(
              socket,
              serializeReply(createJSONRPCErrorResponse(null, ERROR_CODES.internalError, "Internal error"), null),
            );
          },
        )
        .finally(() => {
          connection.running--;
        })
        .catch(() => {});
    }
  });
  socket.on("close", () => {
    if (frameTimer) clearTimeout(frameTimer);
    connections.delete(connection);
  });
}

/** Answer one frame: the reply line, or undefined for notifications only. Never rejects on client input. */
async function answerFrame(text: string, rpc: JSONRPCServer<Connection>, connection: Connection) {
  const frame = parseFrame(text);
  if (frame.type === "error") return serializeReply(frame.response, null);
  if (frame.type === "single") {
    const response = await answerOne(frame.message, rpc, connection);
    return response ? serializeReply(response, response.id) : undefined;
  }
  // A batch is answered with an array (even of one), or not at all when it held only notifications.
  const responses = (await Promise.all(frame.messages.map((m) => answerOne(m, rpc, connection)))).filter(
    (r): r is JSONRPCResponse => r !== null,
  );
  return responses.length > 0 ? serializeReply(responses, null) : undefined;
}

async function answerOne(
  message: Checked,
  rpc: JSONRPCServer<Connection>,
  connection: Connection,
): Promise<JSONRPCResponse | null> {
  if ("error" in message) return message.error;
  const { request } = message;
  try {
    return await rpc.receive(request, connection);
  } catch (error) {
    return request.id === undefined
      ? null
      : createJSONRPCErrorResponse(
          request.id,
          ERROR_CODES.internalError,
          `Internal error: ${String((error as Error)?.message ?? error)}`,
        );
  }
}

function write(socket: Socket, line: string): void {
  if (socket.destroyed || !socket.writable) return;
  if (socket.writableLength > MAX_BUFFERED_OUTPUT) {
    socket.destroy();
    return;
  }
  socket.write(line);
}

function parse<T extends z.ZodType>(schema: T, params: unknown): z.infer<T> {
  const result = schema.safeParse(params ?? {});
  if (!result.success) {
    const { message, issues } = describeIssues(result.error);
    throw new JSONRPCErrorException(`Invalid params: ${message}`, ERROR_CODES.invalidParams, { issues });
  }
  return result.data;
}

function createRpc(bridge: SteeringBridge): JSONRPCServer<Connection> {
  const rpc = new JSONRPCServer<Connection>({ errorListener: () => {} });
  rpc.mapErrorToJSONRPCErrorResponse = (id, error: unknown) => {
    if (error instanceof JSONRPCErrorException)
      return createJSONRPCErrorResponse(id, error.code, error.message, error.data);
    if (error instanceof SteeringInputError) {
      return createJSONRPCErrorResponse(id, ERROR_CODES.invalidParams, `Invalid params: ${error.message}`, {
        issues: [{ path: error.field, message: error.message }],
      });
    }
    if (error instanceof QueueFullError) {
      return createJSONRPCErrorResponse(id, ERROR_CODES.queueFull, error.message, {
        limit: error.limit,
        max: error.max,
      });
    }
    if (error instanceof PendingCursorError) {
      return createJSONRPCErrorResponse(id, ERROR_CODES.invalidParams, `Invalid params: ${error.message}`, {
        issues: [{ path: "cursor", message: error.message }],
      });
    }
    if (error instanceof UnavailableError) {
      return createJSONRPCErrorResponse(id, ERROR_CODES.unavailable, error.message, { feature: error.feature });
    }
    return createJSONRPCErrorResponse(
      id,
      ERROR_CODES.internalError,
      `Internal error: ${String((error as Error)?.message ?? error)}`,
    );
  };
  rpc.handleMethodNotFound = async (request) =>
    request.id === undefined
      ? null
      : createJSONRPCErrorResponse(
          request.id,
          ERROR_CODES.methodNotFound,
          `Method not found: ${JSON.stringify(request.method)}; expected one of ${Object.values(METHODS).join(", ")}`,
        );

  const inject =
    (kind: "message" | "reminder") =>
    (params: unknown): InjectResult => {
      const p = parse(InjectParams, params);
      return bridge.inject({ ...p, kind, source: p.source ?? "socket" });
    };
  rpc.addMethod(METHODS.inject, inject("message"));
  rpc.addMethod(METHODS.remind, inject("reminder"));
  rpc.addMethod(METHODS.postEvent, (params: unknown) => {
    const p = parse(PostEventParams, params);
    return bridge.inject({ ...p, kind: "note", source: p.source ?? "socket" });
  });
  rpc.addMethod(METHODS.cancelToolCall, (params: unknown) => {
    const { callId, ...options } = parse(CancelParams, params);
    return bridge.cancelToolCall(callId, options);
  });
  rpc.addMethod(METHODS.pending, (params: unknown) => pagePending(bridge.queue, parse(PendingParams, params)));
  rpc.addMethod(METHODS.revoke, (params: unknown) => bridge.revoke(parse(RevokeParams, params).id));
  rpc.addMethod(METHODS.status, (params: unknown) => {
    parse(EmptyParams, params);
    return bridge.status();
  });
  rpc.addMethod(METHODS.subscribe, (params: unknown, connection: Connection) => {
    const p = parse(SubscribeParams, params);
    connection.checkpoints = p.checkpoints ?? true;
    connection.acks = p.acks ?? true;
    return { checkpoints: connection.checkpoints, acks: connection.acks };
  });
  return rpc;
}
