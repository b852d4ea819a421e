/**
 * @pi-rails/agent-core/kit: the typed logic behind the loop's call sites (seam catalog, checkpoint registry,
 * patch detection, notices) without the bundled agent loop. Extensions running inside pi use
 * this entry: pi already has its loop, and loading a second copy would only cost start-up time.
 */

/** The loop's contract types (type-only: no runtime import of the loop). */
export type {
  CheckpointHook,
  CheckpointOutcome,
  CheckpointRequest,
  LoopCheckpoint,
  LoopHooks,
  LoopSeamKind,
  StreamRetry,
  StreamTextEvent,
  StreamTextHook,
  StreamTextResult,
  StreamTextSource,
} from "@earendil-works/pi-agent-core";
export * from "./hosts/checkpoints.ts";
export * from "./hosts/stream-hook.ts";
export { AGENT_DIR_ENV, expandTilde, homeDir, resolveAgentDir } from "./kit/agent-dir.ts";
export * from "./kit/cli.ts";
export {
  type EventName,
  type EventPayload,
  type EventSink,
  emitEvent,
  isTtsrStatusPayload,
  STEERING_EVENTS,
  TTSR_COST_EVENT,
  TTSR_MATCHED_EVENT,
  TTSR_STATUS_EVENT,
  TTSR_TRIGGERED_EVENT,
  type TtsrCostPayload,
  type TtsrMatchedPayload,
  type TtsrStatusPayload,
  type TtsrTriggeredPayload,
} from "./kit/contracts.ts";
export {
  type CodeFingerprintOptions,
  cacheDirFromEnv,
  codeFingerprint,
  filesNewestFirst,
  jsonFaithful,
  type KnownFingerprint,
  knownFingerprints,
  pruneToNewest,
  readJsonCache,
  rememberFingerprints,
  writeFileAtomicSync,
  writeJsonCache,
} from "./kit/disk-cache.ts";
export { type ChosenHost, chooseHost, type PiHostKind, type PiHosts, piHostKind } from "./kit/host.ts";
export { type SessionNoticeContext, SessionNotices } from "./kit/host-notices.ts";
export { findPackageManifest, type PackageManifest } from "./kit/package-manifest.ts";
export { isInside, type PathApi, relativeInside } from "./kit/paths.ts";
export {
  firstChangedRead,
  noteExists,
  noteFolders,
  noteRead,
  noteReadError,
  noteResolved,
  pathSignature,
  RACY_CHANGE_MS,
  type ReadSet,
  type ReadSignature,
  type RecordedReads,
  recordReads,
  settledReads,
  unchangedPaths,
  unchangedReads,
} from "./kit/read-set.ts";
export { type BranchEntry, type BranchSource, sessionBranch } from "./kit/session-branch.ts";
export {
  defineSessionEntry,
  latestSessionEntry,
  readSessionEntries,
  type SessionEntryType,
  type SessionEntryWriter,
  writeSessionEntry,
} from "./kit/session-entries.ts";
export {
  type FieldSchema,
  formatSettingsIssue,
  type LoadedSettings,
  loadPiSettings,
  loadSettings,
  loadSettingsSync,
  type PiSettingsOptions,
  parseSettingsSection,
  piSettingsFiles,
  type SettingsFields,
  type SettingsIssue,
  type SettingsSpec,
  UNTRUSTED_PROJECT_MESSAGE,
} from "./kit/settings.ts";
export {
  detectPiPatch,
  hasPiPatchFeature,
  PI_PATCH_SYMBOL,
  type PiPatchFeature,
  type PiPatchInfo,
} from "./patch/detect.ts";
export {
  type BuiltInToolFactory,
  builtInToolOptions,
  registerCancellableBuiltInTools,
} from "./pi/cancellable-tools.ts";
export { NoticeBoard, type NoticeContext, type NoticeLevel } from "./pi/notices.ts";
export { type StreamAbortLike, showStreamAbortNotice, streamAbortNotice } from "./pi/stream-abort-notice.ts";
export { ABORTED_ATTEMPT_EXPLANATION, STREAM_RETRY_TYPE, streamRetry } from "./pi/stream-retry.ts";
export {
  DELIVERY_MODES,
  type DeliveryMode,
  isDeliveryMode,
  isLoopSeam,
  LOOP_SEAMS,
  type LoopSeam,
  resolveSeamSelector,
  SEAM_DRAIN_POLICY,
  type SeamDrainPolicy,
  type SeamSelector,
} from "./seams/catalog.ts";
export {
  type CheckpointObserver,
  type CheckpointPass,
  CheckpointRegistry,
  type Delivery,
  type DrainRequest,
  type DrainSource,
  decideDispatchSkip,
  INTERRUPT_SKIP_REASON,
} from "./seams/checkpoint-registry.ts";
export {
  type CancellableTool,
  type CancelToolCallOptions,
  type CancelToolCallResult,
  type CancelToolCallStatus,
  type DescribeCancellation,
  type ToolCallCancellation,
  type ToolCallInFlight,
  ToolCallRegistry,
  type ToolCallRegistryOptions,
} from "./tools/call-registry.ts";
export {
  CANCEL_REMINDER_TYPE,
  cancelledCallText,
  cancelReminderTextFor,
  DEFAULT_CANCEL_REASON,
  describeCancelledCall,
  type HostCancellation,
  hostCancellationOf,
  isCancelledByHost,
  modelFacingCallId,
} from "./tools/cancelled.ts";
