import { once } from "node:events";
import { chmodSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { SteeringBridge } from "../bridge/steering-bridge.ts";
import { errorResponse, serializeReply } from "../protocol/envelope.ts";
import { type FrameEvent, LineFramer, MAX_FRAME_BYTES } from "../protocol/framing.ts";
import { ERROR_CODES, NOTIFICATIONS, type Notification } from "../protocol/protocol.ts";
import { answerFrame, bridgeHandlers, type Caller, methodTable } from "./methods.ts";
import {
  checkReplaceable,
  ensurePrivateDir,
  MAX_SOCKET_PATH,
  runtimeSocketDir,
  sessionPaths,
  steeringDir,
} from "./paths.ts";
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

export type EndpointLimits = Partial<Record<keyof typeof ENDPOINT_LIMITS, number>>;

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

interface Connection extends Caller {
  socket: Socket;
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
 * The session's control endpoint: JSON-RPC 2.0 over an owner-only Unix socket, one message per
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

  const table = methodTable(bridgeHandlers(bridge));
  const connections = new Set<Connection>();
  const server: Server = createServer((socket) => serveConnection(socket, table, connections, limits));
  server.on("error", () => {});
  server.listen({ path: paths.socket, backlog: LISTEN_BACKLOG });
  await once(server, "listening");
  chmodSync(paths.socket, 0o600);
  server.unref();

  const { sessionId, cwd } = bridge;
  const info: SessionInfo = {
    sessionId,
    pid: process.pid,
    cwd,
    socket: paths.socket,
    startedAt: new Date().toISOString(),
  };
  const startTime = pidStartTime(process.pid);
  if (startTime !== undefined) info.pidStartTime = startTime;
  writeSessionInfo(paths.info, info);

  const broadcast = <P>(notification: Notification<P>, params: P, want: (c: Connection) => boolean) => {
    let line: string | undefined;
    for (const connection of connections) {
      if (!want(connection)) continue;
      line ??= serializeReply({ jsonrpc: "2.0", method: notification.name, params }, null);
      write(connection.socket, line);
    }
  };
  const offAck = bridge.onAck((ack) => broadcast(NOTIFICATIONS.ack, ack, (c) => c.acks));
  const offCheckpoint = bridge.onCheckpoint((cp) => broadcast(NOTIFICATIONS.checkpoint, cp, (c) => c.checkpoints));

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
  table: ReturnType<typeof methodTable>,
  connections: Set<Connection>,
  limits: Required<EndpointLimits>,
): void {
  socket.on("error", () => {});
  socket.unref();
  if (connections.size >= limits.maxConnections) {
    // Told once why, then closed at once: a flood of connections costs a descriptor for a moment each.
    const busy = `Busy: this session's steering socket has its maximum of ${limits.maxConnections} connections open; retry shortly`;
    socket.write(notice(ERROR_CODES.busy, busy, { max: limits.maxConnections })); // a small write goes out at once
    socket.destroy();
    return;
  }
  const connection: Connection = { socket, checkpoints: false, acks: false, running: 0 };
  connections.add(connection);
  const framer = new LineFramer(MAX_FRAME_BYTES);
  const closeWith = (message: string, timeoutMs: number) => {
    write(socket, notice(ERROR_CODES.timeout, message, { timeoutMs }));
    socket.end();
    setTimeout(() => socket.destroy(), 1000).unref();
  };
  let frameTimer: NodeJS.Timeout | undefined;
  const watchFrame = () => {
    if (!framer.partial) {
      if (frameTimer) clearTimeout(frameTimer);
      frameTimer = undefined;
    } else if (!frameTimer) {
      const why = `Timeout: a frame was left unfinished for ${limits.frameTimeoutMs} ms (no newline); connection closed`;
      frameTimer = setTimeout(() => closeWith(why, limits.frameTimeoutMs), limits.frameTimeoutMs).unref();
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
        const why = `frame exceeds the ${MAX_FRAME_BYTES}-byte limit (1 MiB); it is skipped up to its newline`;
        write(socket, notice(ERROR_CODES.invalidRequest, `Invalid Request: ${why}`));
        continue;
      }
      connection.running++;
      answerFrame(event.text, table, connection)
        .then(
          (line) => {
            if (line !== undefined) write(socket, line);
          },
          () => write(socket, notice(ERROR_CODES.internalError, "Internal error")),
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

function write(socket: Socket, line: string): void {
  if (socket.destroyed || !socket.writable) return;
  if (socket.writableLength > MAX_BUFFERED_OUTPUT) {
    socket.destroy();
    return;
  }
  socket.write(line);
}

/** A line the server sends about the connection itself (not answering a request): id null. */
function notice(code: number, message: string, data?: unknown): string {
  return serializeReply(errorResponse(null, code, message, data), null);
}
