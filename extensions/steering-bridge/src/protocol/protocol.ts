import { DELIVERY_MODES, type LoopCheckpoint } from "@pi-rails/agent-core/kit";
import { z } from "zod";
import type { CancelToolCallResult } from "../bridge/cancel.ts";
import type { BridgeStatus, InjectResult } from "../bridge/steering-bridge.ts";
import type { Ack, RevokeResult, SteeringItem } from "../queue/types.ts";

export type { InjectResult };

/** The JSON-RPC methods of a session's steering socket. */
export const METHODS = {
  inject: "steer/inject",
  remind: "steer/remind",
  postEvent: "steer/postEvent",
  cancelToolCall: "steer/cancelToolCall",
  pending: "steer/pending",
  revoke: "steer/revoke",
  status: "steer/status",
  subscribe: "steer/subscribe",
} as const;

/** Notifications the server sends to subscribed clients. */
export const NOTIFICATIONS = { checkpoint: "steer/checkpoint", ack: "steer/ack" } as const;

/** Error codes beyond JSON-RPC's standard ones (-32700 parse, -32600 request, -32601 method, -32602 params). */
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

/** Longest content of one item, in UTF-8 bytes (the queue enforces it for every producer). */
export const MAX_CONTENT_BYTES = 256 * 1024;

/** A zod error option that says "is required" for a missing field and `message` for a wrong one. */
const expect = (message: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : message),
});

const content = z
  .string(expect("must be a string"))
  .min(1, { error: "must not be empty" })
  .refine((text) => Buffer.byteLength(text) <= MAX_CONTENT_BYTES, {
    error: `must be at most ${MAX_CONTENT_BYTES} bytes (UTF-8)`,
  })
  .refine((text) => text.trim() !== "", { error: "must not be blank" });
const mode = z.enum(DELIVERY_MODES, expect(`must be one of ${DELIVERY_MODES.join(", ")}`));
const ttlMs = z
  .number({ error: "must be a number of milliseconds" })
  .int({ error: "must be an integer" })
  .positive({ error: "must be positive" })
  .max(2 ** 31 - 1, { error: "must be at most 2147483647" });
const dedupeKey = z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }).max(256);
const leftover = z.enum(["carry", "discard", "audit"], { error: "must be one of carry, discard, audit" });
const source = z.string({ error: "must be a string" }).min(1).max(128);
const id = z
  .string({ error: "must be a string" })
  .regex(/^[A-Za-z0-9._:-]{1,64}$/, { error: "must be 1-64 characters of A-Z a-z 0-9 . _ : -" });

/** `steer/inject` and `steer/remind`: a message or a reminder for the bridge queue; mode is required. */
export const InjectParams = z.strictObject(
  {
    id: id.optional(),
    content,
    mode,
    dedupeKey: dedupeKey.optional(),
    ttlMs: ttlMs.optional(),
    leftover: leftover.optional(),
    source: source.optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? `unknown key(s): ${issue.keys.join(", ")}` : "must be an object",
  },
);
export type InjectParams = z.infer<typeof InjectParams>;

/** `steer/postEvent`: an inbox note (a user-role message at pre_compact / post_compact); no mode. */
export const PostEventParams = z.strictObject(
  {
    id: id.optional(),
    content,
    dedupeKey: dedupeKey.optional(),
    ttlMs: ttlMs.optional(),
    leftover: leftover.optional(),
    source: source.optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? `unknown key(s): ${issue.keys.join(", ")}` : "must be an object",
  },
);
export type PostEventParams = z.infer<typeof PostEventParams>;

export const CancelParams = z.strictObject({
  callId: z.string(expect("must be a string")).min(1, { error: "must not be empty" }),
  reason: z.string({ error: "must be a string" }).max(1024).optional(),
  injectReminder: z.boolean({ error: "must be a boolean" }).optional(),
  timeoutMs: z.number({ error: "must be a number" }).int().positive().max(600_000).optional(),
});
export type CancelParams = z.infer<typeof CancelParams>;

export const RevokeParams = z.strictObject({ id: z.string(expect("must be a string")).min(1) });
export const EmptyParams = z.strictObject({});
/** Most items one `steer/pending` page holds, and the longest content preview it carries (replies stay small). */
export const MAX_PENDING_PAGE = 200;
export const MAX_PREVIEW_CHARS = 1000;
export const PendingParams = z.strictObject({
  limit: z.number({ error: "must be a number" }).int().positive().max(MAX_PENDING_PAGE).optional(),
  cursor: z.string({ error: "must be a string" }).max(128).optional(),
  previewChars: z.number({ error: "must be a number" }).int().min(0).max(MAX_PREVIEW_CHARS).optional(),
});
export type PendingParams = z.infer<typeof PendingParams>;
export const SubscribeParams = z.strictObject({
  checkpoints: z.boolean({ error: "must be a boolean" }).optional(),
  acks: z.boolean({ error: "must be a boolean" }).optional(),
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

/** Method name -> params and result types, for the typed client. */
export interface SteeringMethods {
  "steer/inject": { params: InjectParams; result: InjectResult };
  "steer/remind": { params: InjectParams; result: InjectResult };
  "steer/postEvent": { params: PostEventParams; result: InjectResult };
  "steer/cancelToolCall": { params: CancelParams; result: CancelToolCallResult };
  "steer/pending": { params: PendingParams; result: PendingResult };
  "steer/revoke": { params: { id: string }; result: RevokeResult };
  "steer/status": { params: Record<string, never>; result: BridgeStatus };
  "steer/subscribe": { params: SubscribeParams; result: SubscribeResult };
}

export interface SteeringNotifications {
  "steer/checkpoint": LoopCheckpoint;
  "steer/ack": Ack;
}

/** "mode: must be one of ...; ttlMs: must be positive" — which field and why, for a params error message. */
export function describeIssues(error: z.ZodError): { message: string; issues: { path: string; message: string }[] } {
  const issues = error.issues.map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map(String).join(".") : "params",
    message: issue.message,
  }));
  return { message: issues.map((issue) => `${issue.path}: ${issue.message}`).join("; "), issues };
}
