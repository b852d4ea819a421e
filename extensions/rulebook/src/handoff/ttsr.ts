/**
 * The handoff from pi-ttsr (see `@pi-rails/agent-core/kit` contracts): while pi-ttsr says it is active, rulebook
 * leaves rules with a stream condition to it.
 */
export { isTtsrStatusPayload, TTSR_STATUS_EVENT, type TtsrStatusPayload } from "@pi-rails/agent-core/kit";
