/**
 * @pi-rails/agent-core: the pi agent loop with a per-delta stream hook (abort, inject, retry inside the run)
 * and a checkpoint at every loop seam, plus the typed logic behind those call sites.
 *
 * The loop itself (`Agent`, `agentLoop`, ...) is pi-agent-core 0.73.1 with the pi-rails patch applied; it is
 * bundled into this package at build time because a pnpm patch does not travel to npm.
 */
export * from "@mariozechner/pi-agent-core";
export * from "./kit.ts";
