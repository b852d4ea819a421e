/**
 * @pi-rails/steering-bridge as a library: what a program needs to steer a running pi from another process (the typed
 * client and the socket's method descriptors), what another extension in the same pi needs (the `pi.events`
 * channels with their payload types, the item and ack types, the limits), and what a reader of a session file needs
 * (the entry and message types the bridge writes). The bridge's own parts (queue, journal, endpoint) stay inside.
 */
export type {
  CancelToolCallOptions,
  CancelToolCallResult,
  CancelToolCallStatus,
  ToolCallInFlight,
} from "./bridge/cancel.ts";
export type { BridgeStatus, InjectResult } from "./bridge/steering-bridge.ts";
export {
  DEFAULT_REQUEST_TIMEOUT_MS,
  RequestTimeoutError,
  SteeringClient,
  SteeringRpcError,
  withSteeringClient,
} from "./client/client.ts";
export { findSessions, nearestSessions, resolveSession, SessionChoiceError } from "./client/discover.ts";
export { ENDPOINT_LIMITS, type EndpointLimits } from "./endpoint/server.ts";
export type { SessionInfo } from "./endpoint/session-registry.ts";
export {
  STEERING_ACK_EVENT,
  STEERING_CHECKPOINT_EVENT,
  STEERING_EVENTS,
  STEERING_INJECT_EVENT,
  STEERING_READY_EVENT,
  STEERING_REJECTED_EVENT,
  type SteeringApi,
  type SteeringEventPayloads,
  type SteeringReadyEvent,
  type SteeringRejectedEvent,
} from "./events.ts";
export {
  AUDIT_ENTRY,
  type AuditRecord,
  QUEUE_SNAPSHOT_ENTRY,
  type QueueSnapshot,
} from "./pi/session-entries.ts";
export {
  AckNotification,
  CancelParams,
  CancelToolCall,
  CheckpointNotification,
  EmptyParams,
  ERROR_CODES,
  Inject,
  InjectParams,
  MAX_PENDING_PAGE,
  MAX_PREVIEW_CHARS,
  METHODS,
  type Method,
  NOTIFICATIONS,
  type Notification,
  type NotificationName,
  type NotificationParams,
  Pending,
  type PendingItemSummary,
  PendingParams,
  type PendingResult,
  PostEvent,
  PostEventParams,
  Remind,
  Revoke,
  RevokeParams,
  Status,
  Subscribe,
  SubscribeParams,
  type SubscribeResult,
} from "./protocol/protocol.ts";
export {
  isAuditMessage,
  STEERING_AUDIT_TYPE,
  STEERING_MESSAGE_TYPE,
  STEERING_NOTE_TYPE,
  STEERING_REMINDER_TYPE,
  type SteeringMessageDetails,
} from "./queue/render.ts";
export { QUEUE_LIMITS, QueueFullError, SteeringInputError } from "./queue/steering-queue.ts";
export type {
  Ack,
  AckState,
  DeliverySite,
  ItemKind,
  LeftoverPolicy,
  RevokeResult,
  SteeringItem,
  SteeringItemInput,
} from "./queue/types.ts";
export type { SteeringCheckpoint } from "./seams/seam-log.ts";
