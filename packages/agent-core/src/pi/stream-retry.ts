import type { StreamRetry } from "@earendil-works/pi-agent-core";

/** The custom type of the hidden retry message pi appends after a stream hook aborted a response. */
export const STREAM_RETRY_TYPE = "stream-retry";

/** What the session records of an aborted attempt that was billed (its `errorMessage`), unless the host says otherwise. */
export const ABORTED_ATTEMPT_EXPLANATION = "Interrupted by a stream_text handler and retried; kept for its usage only";

/**
 * A `retry` for a stream hook's abort with the host's parts filled in: the retry message's custom type and the
 * explanation the session records for the aborted attempt. The patched loop has no default for either.
 */
export function streamRetry(content: string, options: Partial<Omit<StreamRetry, "content">> = {}): StreamRetry {
  return { customType: STREAM_RETRY_TYPE, explanation: ABORTED_ATTEMPT_EXPLANATION, ...options, content };
}
