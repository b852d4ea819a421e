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
import { SteeringInputError } from "../queue/steering-queue.ts";
import { LineFramer, MAX_FRAME_BYTES } from "./framing.ts";
import { checkReplaceable, ensurePrivateDir, MAX_SOCKET_PATH, sessionPaths, steeringDir } from "./paths.ts";
import {
  CancelParams,
  describeIssues,
  EmptyParams,
  ERROR_CODES,
  InjectParams,
  type InjectResult,
  METHODS,
  NOTIFICATIONS,
  PostEventParams,
  RevokeParams,
  SubscribeParams,
} from "./protocol.ts";
import {
  isPidAlive,
  listSessions,
  readSessionInfo,
  removeQuietly,
  type SessionInfo,
  writeSessionInfo,
} from "./session-registry.ts";

/** Pending connections the kernel may hold (capped by net.core.somaxconn): bursts of clients connect at once. */
const LISTEN_BACKLOG = 4096;

/** A client that stops reading is cut off once this much output waits for it. */
const MAX_BUFFERED_OUTPUT = 8 * 1024 * 1024;

export interface EndpointOptions {
  bridge: SteeringBridge;
  /** pi's agent dir; the socket lives in `<agentDir>/steering`. */
  agentDir: string;
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
}

/**
 * The session's control endpoint: JSON-RPC 2.0 (json-rpc-2.0) over an owner-only Unix socket, one message per
 * line. Every method validates its params with zod and answers standard error codes; a bad frame or a vanished
 * client costs only that request. The server is unref'd: it never keeps pi alive on its own.
 */
export async function startEndpoint(options: EndpointOptions): Promise<Endpoint> {
  const { bridge } = options;
  const dir = steeringDir(options.agentDir);
  ensurePrivateDir(dir);
  listSessions(dir); // removes files of dead pids
  const paths = sessionPaths(dir, bridge.sessionId);
  if (Buffer.byteLength(paths.socket) > MAX_SOCKET_PATH) {
    throw new Error(
      `steering socket path is ${Buffer.byteLength(paths.socket)} bytes, over the ${MAX_SOCKET_PATH}-byte limit of Unix sockets: ${paths.socket} (set PI_CODING_AGENT_DIR to a shorter dir)`,
    );
  }
  for (const path of [paths.socket, paths.info]) {
    if (!checkReplaceable(path)) continue;
    const owner = readSessionInfo(paths.info);
    if (owner && owner.pid !== process.pid && isPidAlive(owner.pid)) {
      throw new Error(
        `session ${bridge.sessionId} is already served by live pi process ${owner.pid} (${paths.socket})`,
      );
    }
    removeQuietly(path);
  }

  const rpc = createRpc(bridge);
  const connections = new Set<Connection>();
  const server: Server = createServer((socket) => serveConnection(socket, rpc, connections));
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
  writeSessionInfo(paths.info, info);

  const broadcast = (method: string, params: unknown, want: (c: Connection) => boolean) => {
    let line: string | undefined;
    for (const connection of connections) {
      if (!want(connection)) continue;
      line ??= `${JSON.stringify(createJSONRPCNotification(method, params))}\n`;
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

function serveConnection(socket: Socket, rpc: JSONRPCServer<Connection>, connections: Set<Connection>): void {
  const connection: Connection = { socket, checkpoints: false, acks: false };
  connections.add(connection);
  socket.unref();
  const framer = new LineFramer(MAX_FRAME_BYTES);
  socket.on("data", (chunk: Buffer) => {
    for (const event of framer.push(chunk)) {
      if (event.type === "oversized") {
        reply(
          socket,
          createJSONRPCErrorResponse(
            null,
            ERROR_CODES.invalidRequest,
            `Invalid Request: frame exceeds the ${MAX_FRAME_BYTES}-byte limit (1 MiB); it is skipped up to its newline`,
          ),
        );
        continue;
      }
      rpc.receiveJSON(event.text, connection).then(
        (response) => {
          if (response) reply(socket, response);
        },
        (error: unknown) => {
          reply(
            socket,
            createJSONRPCErrorResponse(null, ERROR_CODES.internalError, `Internal error: ${String(error)}`),
          );
        },
      );
    }
  });
  socket.on("error", () => {});
  socket.on("close", () => connections.delete(connection));
}

function reply(socket: Socket, response: JSONRPCResponse | JSONRPCResponse[]): void {
  write(socket, `${JSON.stringify(response)}\n`);
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
  rpc.addMethod(METHODS.pending, (params: unknown) => {
    parse(EmptyParams, params);
    return { items: bridge.pending() };
  });
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
