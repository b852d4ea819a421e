import { z } from "zod";
import type { CancelToolCallResult } from "../bridge/cancel.ts";
import type { BridgeStatus, InjectResult } from "../bridge/steering-bridge.ts";
import type { Ack, RevokeResult, SteeringItem } from "../queue/types.ts";
import type { SteeringCheckpoint } from "../seams/seam-log.ts";
import { DeliveryModeField, expect, ITEM_FIELDS, integer, issuePath, milliseconds, says } from "./item.ts";

/**
 * The steering socket's protocol, as data: one descriptor per method (its wire name, the check of its params, its
 * result type) in the way LSP declares `RequestType`s. The server's method table, the client's typed
 * `request(Inject, params)` and pi-steer's commands are all built from these constants, so they cannot drift.
 * This folder is the leaf both sides import: it imports nothing from the endpoint, the client or the CLI.
 */
export interface Method<P = unknown, R = unknown> {
  readonly name: string;
  /** Checks the params off the wire (the server's first step, so an error names the field). */
  readonly params: z.ZodType<P>;
  /** Never set: carries the result type. */
  readonly result?: R;
  /** How long the server may take beyond a request's timeout (a cancel waits for its tool to stop). */
  waitsMs?(params: P): number;
}

/** Declare a method: `method<InjectParams, InjectResult>("steer/inject", InjectParams)`. */
export const method = <P, R>(name: string, params: z.ZodType<P>, waitsMs?: (params: P) => number): Method<P, R> =>
  waitsMs ? { name, params, waitsMs } : { name, params };

/** A notification the server sends to subscribed clients; `N` keeps its name literal for typed listeners. */
export interface Notification<P = unknown, N extends string = string> {
  readonly name: N;
  /** Never set: carries the params type. */
  readonly params?: P;
}
const notification = <P, N extends string>(name: N): Notification<P, N> => ({ name });

/** JSON-RPC's standard error codes and the steering socket's own (-32000 range; docs/protocol.md). */
export const ERROR_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** The running pi lacks what the method needs (stock pi: no seams, no tool-call cancel). */
  unavailable: -32001,
  /** The session's queue is full (`data.limit`: "pendingItems" or "pendingBytes", `data.max`): retry later. */
  queueFull: -32002,
  /** The reply would exceed the frame limit (`data.limit`); page the request. */
  replyTooLarge: -32003,
  /** The endpoint has its maximum of connections open (`data.max`); sent once, then the connection is closed. */
  busy: -32004,
  /** The connection was closed for idling or for a frame left unfinished too long (`data.timeoutMs`). */
  timeout: -32005,
} as const;

/** A JSON-RPC error: thrown by a method on the server, and by the client for an error answer (code as sent). */
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

const object = <S extends z.ZodRawShape>(shape: S) =>
  z.strictObject(shape, {
    errorMap: (issue) => ({
      message: issue.code === "unrecognized_keys" ? `unknown key(s): ${issue.keys.join(", ")}` : "must be an object",
    }),
  });

/** An item's fields as the queue checks them; the socket also caps ttlMs at Node's longest timer delay. */
const ttlMs = milliseconds((number) => number.max(2 ** 31 - 1, "must be at most 2147483647"));
const item = { ...ITEM_FIELDS, ttlMs: ttlMs.optional() };

/** `steer/inject` and `steer/remind`: a message or a reminder for the bridge queue; mode is required. */
export const InjectParams = object({ ...item, mode: DeliveryModeField });
export type InjectParams = z.infer<typeof InjectParams>;
/** `steer/postEvent`: an inbox note (a user-role message at pre_compact / post_compact); no mode. */
export const PostEventParams = object(item);
export type PostEventParams = z.infer<typeof PostEventParams>;
export const CancelParams = object({
  callId: z.string(expect("must be a string")).min(1, "must not be empty"),
  reason: z.string(says("must be a string")).max(1024).optional(),
  injectReminder: z.boolean(says("must be a boolean")).optional(),
  timeoutMs: integer("must be a number", "must be a number", (number) => number.positive().max(600_000)).optional(),
});
export type CancelParams = z.infer<typeof CancelParams>;
export const RevokeParams = object({ id: z.string(expect("must be a string")).min(1) });
export type RevokeParams = z.infer<typeof RevokeParams>;
export const EmptyParams = object({});
export type EmptyParams = z.infer<typeof EmptyParams>;
/** Most items one `steer/pending` page holds, and the longest content preview it carries (replies stay small). */
export const MAX_PENDING_PAGE = 200;
export const MAX_PREVIEW_CHARS = 1000;
export const PendingParams = object({
  limit: integer("must be a number", "must be a number", (number) =>
    number.positive().max(MAX_PENDING_PAGE),
  ).optional(),
  cursor: z.string(says("must be a string")).max(128).optional(),
  previewChars: integer("must be a number", "must be a number", (number) =>
    number.min(0).max(MAX_PREVIEW_CHARS),
  ).optional(),
});
export type PendingParams = z.infer<typeof PendingParams>;
export const SubscribeParams = object({
  checkpoints: z.boolean(says("must be a boolean")).optional(),
  acks: z.boolean(says("must be a boolean")).optional(),
});
export type SubscribeParams = z.infer<typeof SubscribeParams>;

/** A pending item as `steer/pending` lists it: content cut to a preview, with its full size. */
export type PendingItemSummary = SteeringItem & { contentBytes: number; truncated?: true };
/**
 * One page of `steer/pending`: up to `limit` items (default 50) in arrival order, content previews of
 * `previewChars` (default 200); `nextCursor` asks for the next page; `total` and `totalBytes` count all pending.
 */
export interface PendingResult {
  items: PendingItemSummary[];
  total: number;
  totalBytes: number;
  nextCursor?: string;
}
export interface SubscribeResult {
  checkpoints: boolean;
  acks: boolean;
}
export type { BridgeStatus, InjectResult };

export const Inject = method<InjectParams, InjectResult>("steer/inject", InjectParams);
export const Remind = method<InjectParams, InjectResult>("steer/remind", InjectParams);
export const PostEvent = method<PostEventParams, InjectResult>("steer/postEvent", PostEventParams);
/** Waits for the cancel's own timeout (default 5 s) on top of the request's. */
export const CancelToolCall = method<CancelParams, CancelToolCallResult>(
  "steer/cancelToolCall",
  CancelParams,
  (params) => params.timeoutMs ?? 5000,
);
export const Pending = method<PendingParams, PendingResult>("steer/pending", PendingParams);
export const Revoke = method<RevokeParams, RevokeResult>("steer/revoke", RevokeParams);
export const Status = method<EmptyParams, BridgeStatus>("steer/status", EmptyParams);
export const Subscribe = method<SubscribeParams, SubscribeResult>("steer/subscribe", SubscribeParams);
/** Every method of the socket: the server serves exactly these. */
export const METHODS = {
  inject: Inject,
  remind: Remind,
  postEvent: PostEvent,
  cancelToolCall: CancelToolCall,
  pending: Pending,
  revoke: Revoke,
  status: Status,
  subscribe: Subscribe,
} as const;

export const CheckpointNotification = notification<SteeringCheckpoint, "steer/checkpoint">("steer/checkpoint");
export const AckNotification = notification<Ack, "steer/ack">("steer/ack");
/** Every notification a subscribed client may receive. */
export const NOTIFICATIONS = { checkpoint: CheckpointNotification, ack: AckNotification } as const;
export type NotificationName = (typeof NOTIFICATIONS)[keyof typeof NOTIFICATIONS]["name"];
/** The params of the notification called `N`. */
export type NotificationParams<N extends NotificationName> =
  Extract<(typeof NOTIFICATIONS)[keyof typeof NOTIFICATIONS], { name: N }> extends Notification<infer P> ? P : never;

/**
 * Check `params` against the method's schema; a mismatch is a -32602 naming each field and why
 * ("Invalid params: mode: must be one of ...; ttlMs: must be positive", `data.issues: [{ path, message }]`).
 */
export function parseParams<P>(method: Method<P>, params: unknown): P {
  const result = method.params.safeParse(params ?? {});
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({ path: issuePath(issue, "params"), message: issue.message }));
  const message = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
  throw new SteeringRpcError(ERROR_CODES.invalidParams, `Invalid params: ${message}`, { issues });
}
