export {
  type CancelCapableApi,
  type CancelToolCallOptions,
  type CancelToolCallResult,
  type CancelToolCallStatus,
  hasCancelApi,
  type ToolCallInFlight,
} from "./bridge/cancel.ts";
export {
  type AgentMessage,
  type BridgeStatus,
  type CancelBackend,
  type InjectResult,
  type SeamDeliveries,
  SteeringBridge,
  type SteeringBridgeOptions,
  UnavailableError,
} from "./bridge/steering-bridge.ts";
export { ToolTracker } from "./bridge/tool-tracker.ts";
export { SteeringClient, SteeringRpcError } from "./client/client.ts";
export { findSessions, resolveSession, SessionChoiceError } from "./client/discover.ts";
export { type FrameEvent, LineFramer, MAX_FRAME_BYTES } from "./endpoint/framing.ts";
export { ensurePrivateDir, resolveAgentDir, sessionPaths, steeringDir, UnsafePathError } from "./endpoint/paths.ts";
export {
  CancelParams,
  ERROR_CODES,
  InjectParams,
  METHODS,
  NOTIFICATIONS,
  type PendingResult,
  PostEventParams,
  type SteeringMethods,
  type SteeringNotifications,
  type SubscribeResult,
} from "./endpoint/protocol.ts";
export { type Endpoint, type EndpointOptions, startEndpoint } from "./endpoint/server.ts";
export { isPidAlive, listSessions, type SessionInfo } from "./endpoint/session-registry.ts";
export {
  STEERING_EVENTS,
  type SteeringApi,
  type SteeringEventPayloads,
  type SteeringReadyEvent,
  type SteeringRejectedEvent,
} from "./events.ts";
export { findQueueSnapshot, QUEUE_SNAPSHOT_TYPE, type QueueSnapshot } from "./pi/snapshot.ts";
export { parseSteerCommand } from "./pi/steer-command.ts";
export {
  isAuditMessage,
  renderItem,
  STEERING_AUDIT_TYPE,
  STEERING_MESSAGE_TYPE,
  STEERING_NOTE_TYPE,
  STEERING_REMINDER_TYPE,
  type SteeringCustomMessage,
  type SteeringMessageDetails,
} from "./queue/render.ts";
export { SteeringInputError, SteeringQueue, type SteeringQueueOptions } from "./queue/steering-queue.ts";
export type {
  Ack,
  AckState,
  DeliverySite,
  EnqueueResult,
  ItemChannel,
  ItemKind,
  LeftoverPolicy,
  RevokeResult,
  SteeringItem,
  SteeringItemInput,
} from "./queue/types.ts";
export { formatSeamLog, SeamLog } from "./seams/seam-log.ts";
