import type { LoopSeamKind } from "@earendil-works/pi-agent-core";

/**
 * The closed catalog of loop seams, in the order they can fire within one iteration.
 * A seam is a point where out-of-band influence (messages, reminders, a skip of the tool batch) may enter
 * the running loop; naming every one keeps steering auditable instead of scattered across the loop body.
 */
export const LOOP_SEAMS = [
  "iteration_start",
  "pre_compact",
  "post_compact",
  "pre_tool_dispatch",
  "post_tool_dispatch",
  "iteration_end",
  "loop_exit",
] as const satisfies readonly LoopSeamKind[];

export type LoopSeam = (typeof LOOP_SEAMS)[number];

/** How urgently a bridge delivery must reach the model; decides which seams drain it. */
export const DELIVERY_MODES = ["interrupt_immediate", "finish_step", "audit_only"] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];

/** What one seam drains: bridge modes in drain order, and whether the inbox is drained there. */
export interface SeamDrainPolicy {
  readonly modes: readonly DeliveryMode[];
  readonly inbox: boolean;
}

/** The drain table of the catalog (seed `steering-seams.md`). */
export const SEAM_DRAIN_POLICY: Readonly<Record<LoopSeam, SeamDrainPolicy>> = {
  iteration_start: { modes: ["interrupt_immediate", "finish_step"], inbox: false },
  pre_compact: { modes: [], inbox: true },
  post_compact: { modes: [], inbox: true },
  pre_tool_dispatch: { modes: ["interrupt_immediate"], inbox: false },
  iteration_end: { modes: ["interrupt_immediate", "finish_step"], inbox: false },
  post_tool_dispatch: { modes: ["interrupt_immediate", "finish_step"], inbox: false },
  loop_exit: { modes: ["audit_only"], inbox: false },
};

const SEAM_SET: ReadonlySet<string> = new Set(LOOP_SEAMS);
const MODE_SET: ReadonlySet<string> = new Set(DELIVERY_MODES);

/** Narrow untrusted input (settings, sockets) to a seam name. */
export function isLoopSeam(value: unknown): value is LoopSeam {
  return typeof value === "string" && SEAM_SET.has(value);
}

/** Narrow untrusted input to a delivery mode; unknown modes are rejected, never defaulted. */
export function isDeliveryMode(value: unknown): value is DeliveryMode {
  return typeof value === "string" && MODE_SET.has(value);
}

/** Seam selection accepted by hooks: one seam, several, or every seam. */
export type SeamSelector = LoopSeam | readonly LoopSeam[] | "*";

/** Resolve a selector into a set, failing loudly on names outside the catalog. */
export function resolveSeamSelector(selector: SeamSelector): ReadonlySet<LoopSeam> {
  if (selector === "*") return new Set(LOOP_SEAMS);
  const kinds = typeof selector === "string" ? [selector] : selector;
  for (const kind of kinds) {
    if (!isLoopSeam(kind)) {
      throw new Error(`Unknown loop seam "${String(kind)}"; expected one of: ${LOOP_SEAMS.join(", ")}, or "*"`);
    }
  }
  return new Set(kinds);
}
