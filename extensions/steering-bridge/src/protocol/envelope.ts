import { MAX_FRAME_BYTES } from "./framing.ts";
import { ERROR_CODES } from "./protocol.ts";

/** JSON-RPC 2.0 ids: only these are echoed (§4). */
export type RpcId = string | number | null;
export interface RpcRequest {
  jsonrpc: "2.0";
  /** Absent on a notification (no answer is sent). */
  id?: RpcId;
  method: string;
  params?: unknown;
}
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
export type RpcResponse = { jsonrpc: "2.0"; id: RpcId } & ({ result: unknown } | { error: RpcErrorObject });
export type RpcErrorResponse = { jsonrpc: "2.0"; id: RpcId; error: RpcErrorObject };

/** An error answer; `data` only when given. */
export function errorResponse(id: RpcId, code: number, message: string, data?: unknown): RpcErrorResponse {
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** Most requests one batch may hold: a batch is answered as a whole, so it is bounded like a frame. */
export const MAX_BATCH_REQUESTS = 100;

/** One frame, sorted before any method runs: a request, a batch (each member sorted), or an answer already. */
export type ParsedFrame =
  | { type: "single"; message: Checked }
  | { type: "batch"; messages: Checked[] }
  | { type: "error"; response: RpcErrorResponse };

/** A frame member: a well-formed request to run, or the error answering it. */
export type Checked = { request: RpcRequest } | { error: RpcErrorResponse };

/**
 * Parse and check one frame's JSON-RPC envelope. Pure, and never throws: whatever the bytes, the answer is a
 * value. Only string, number or null ids are echoed (JSON-RPC 2.0 §4); any other id is answered -32600 with
 * `id: null`, so a hostile id (deep, huge) never reaches the serializer.
 */
export function parseFrame(text: string): ParsedFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { type: "error", response: errorResponse(null, ERROR_CODES.parseError, "Parse error") };
  }
  if (!Array.isArray(value)) return { type: "single", message: checkRequest(value) };
  if (value.length === 0) return { type: "error", response: invalid(null, "an empty batch holds no request") };
  if (value.length > MAX_BATCH_REQUESTS) {
    return {
      type: "error",
      response: invalid(null, `a batch holds at most ${MAX_BATCH_REQUESTS} requests, this one ${value.length}`),
    };
  }
  return { type: "batch", messages: value.map(checkRequest) };
}

/** Check one request object; its id is echoed only when it is a valid id. */
function checkRequest(value: unknown): Checked {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { error: invalid(null, "a request must be a JSON object") };
  }
  const message = value as Record<string, unknown>;
  if ("id" in message && !isValidId(message["id"])) {
    return { error: invalid(null, "id must be a string, a number or null") };
  }
  const echo = (message["id"] ?? null) as RpcId;
  if (message["jsonrpc"] !== "2.0") return { error: invalid(echo, 'jsonrpc must be "2.0"') };
  if (typeof message["method"] !== "string") return { error: invalid(echo, "method must be a string") };
  const params = message["params"];
  if (params !== undefined && (typeof params !== "object" || params === null)) {
    return { error: invalid(echo, "params must be an object or an array") };
  }
  if ("result" in message || "error" in message) {
    return { error: invalid(echo, "a request carries no result or error") };
  }
  return { request: message as unknown as RpcRequest };
}

function isValidId(id: unknown): boolean {
  return typeof id === "string" ? id.length <= 256 : (typeof id === "number" && Number.isFinite(id)) || id === null;
}

function invalid(id: RpcId, why: string): RpcErrorResponse {
  return errorResponse(id, ERROR_CODES.invalidRequest, `Invalid Request: ${why}`);
}

/**
 * One reply line (JSON plus newline), never throwing and never larger than a frame: a reply that cannot be serialized
 * answers -32603, one over the frame limit answers -32003 naming the limit (the peer's framer would drop it otherwise).
 */
export function serializeReply(response: unknown, id: RpcId | undefined, maxBytes: number = MAX_FRAME_BYTES): string {
  const errorLine = (code: number, message: string, data?: unknown) =>
    `${JSON.stringify(errorResponse(id ?? null, code, message, data))}\n`;
  let line: string;
  try {
    line = `${JSON.stringify(response)}\n`;
  } catch (error) {
    const why = (error as Error)?.message ?? String(error);
    line = errorLine(ERROR_CODES.internalError, `Internal error: the reply could not be serialized (${why})`);
  }
  if (Buffer.byteLength(line) <= maxBytes) return line;
  const size = `${Buffer.byteLength(line)} bytes, over the ${maxBytes}-byte frame limit`;
  return errorLine(ERROR_CODES.replyTooLarge, `Reply too large: ${size}; page the request`, { limit: maxBytes });
}
