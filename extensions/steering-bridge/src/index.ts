export { resolveAgentDir } from "@pi-rails/agent-core/kit";
export { resolveCallId } from "./bridge/call-ids.ts";
export type {
  CancelToolCallOptions,
  CancelToolCallResult,
  CancelToolCallStatus,
  ToolCallInFlight,
} from "./bridge/cancel.ts";
export {
  type AgentMessage,
  type BridgeHost,
  type BridgeStatus,
  type CancelBackend,
  type InjectResult,
  type LoopPass,
  type SeamDeliveries,
  SteeringBridge,
  type SteeringBridgeOptions,
  UnavailableError,
} from "./bridge/steering-bridge.ts";
export { ToolTracker } from "./bridge/tool-tracker.ts";
export {
  DEFAULT_REQUEST_TIMEOUT_MS,
  RequestTimeoutError,
  SteeringClient,
  SteeringRpcError,
  withSteeringClient,
} from "./client/client.ts";
export { findSessions, nearestSessions, resolveSession, SessionChoiceError } from "./client/discover.ts";
export { ensurePrivateDir, runtimeSocketDir, sessionPaths, steeringDir, UnsafePathError } from "./endpoint/paths.ts";
export {
  ENDPOINT_LIMITS,
  type Endpoint,
  type EndpointLimits,
  type EndpointOptions,
  SessionTakenError,
  startEndpoint,
} from "./endpoint/server.ts";
export {
  isOwnerAlive,
  isSessionLive,
  listSessions,
  pidStartTime,
  type SessionInfo,
} from "./endpoint/session-registry.ts";
export {
  STEERING_EVENTS,
  type SteeringApi,
  type SteeringEventPayloads,
  type SteeringReadyEvent,
  type SteeringRejectedEvent,
} from "./events.ts";
export { AUDIT_ENTRY, type AuditRecord, QUEUE_SNAPSHOT_ENTRY, type QueueSnapshot } from "./pi/session-entries.ts";
export { parseSteerCommand } from "./pi/steer-command.ts";
export {
  type Checked,
  errorResponse,
  MAX_BATCH_REQUESTS,
  parseFrame,
  type RpcRequest,
  type RpcResponse,
  serializeReply,
} from "./protocol/envelope.ts";
export { type FrameEvent, LineFramer, MAX_FRAME_BYTES } from "./protocol/framing.ts";
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
  method,
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
  parseParams,
  Remind,
  Revoke,
  RevokeParams,
  Status,
  Subscribe,
  SubscribeParams,
  type SubscribeResult,
} from "./protocol/protocol.ts";
export { PendingCursorError, pagePending } from "./queue/pending-page.ts";
export {
  isAuditMessage,
  renderItem,
  STEERING_AUDIT_TYPE,
  STEERING_MESSAGE_TYPE,
  STEERING_NOTE_TYPE,
  STEERING_REMINDER_TYPE,
  type SteeringMessageDetails,
} from "./queue/render.ts";
export {
  contentBytes,
  QUEUE_LIMITS,
  QueueFullError,
  SteeringInputError,
  SteeringQueue,
  type SteeringQueueOptions,
} from "./queue/steering-queue.ts";
export type {
  Ack,
  AckState,
  DeliverySite,
  EnqueueResult,
  ItemKind,
  LeftoverPolicy,
  RevokeResult,
  SteeringItem,
  SteeringItemInput,
} from "./queue/types.ts";
export { formatSeamLog, SeamLog, type SteeringCheckpoint } from "./seams/seam-log.ts";
export { type JournalRecord, type JournalState, QueueJournal, readJournal, replayJournal } from "./store/journal.ts";
export { acquireSessionLock, type LockOwner, type LockResult } from "./store/session-lock.ts";
export { openSessionStore, type SessionStore } from "./store/session-store.ts";
