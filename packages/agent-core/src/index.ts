/**
 * @pi-rails/agent-core: the pi agent loop with a per-delta stream hook (abort, inject, retry inside the run)
 * and a checkpoint at every loop seam, plus the typed logic behind those call sites.
 *
 * The loop itself (`Agent`, `agentLoop`, ...) is pi-agent-core 0.73.1 with the pi-rails patch applied; it is
 * bundled into this package at build time because a pnpm patch does not travel to npm.
 */
export * from "@mariozechner/pi-agent-core";
export {
  detectPiPatch,
  hasPiPatchFeature,
  PI_PATCH_SYMBOL,
  type PiPatchFeature,
  type PiPatchInfo,
} from "./patch/detect.ts";
export { NoticeBoard, type NoticeContext, type NoticeLevel } from "./pi/notices.ts";
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
export { composeStreamHooks, DEFAULT_MAX_CONSECUTIVE_STREAM_ABORTS } from "./stream/compose.ts";
