/**
 * Set-up shared by the provider matrix: one strict loopback server per wire format for a whole test file
 * (scripts are swapped per test), the extension package dirs, and what a request carried.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type ModelServer,
  type RecordedRequest,
  type Script,
  startProviderServer,
  WIRE_FORMATS,
  type WireFormat,
} from "@pi-rails/testkit";
import { afterAll, beforeAll, expect } from "vitest";

export { ruleFile } from "../../../../extensions/pi-ttsr/test/helpers.ts";

export const FORMATS: readonly WireFormat[] = WIRE_FORMATS;

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
export const TTSR_DIR = join(REPO, "extensions", "pi-ttsr");
export const STEERING_DIR = join(REPO, "extensions", "steering-bridge");

/** The strict servers of this file, started once before its tests and closed after them. */
export function useStrictServers(): Record<WireFormat, ModelServer> {
  const servers = {} as Record<WireFormat, ModelServer>;
  beforeAll(async () => {
    for (const format of FORMATS) servers[format] = await startProviderServer(format, { strict: true });
  });
  afterAll(async () => {
    for (const server of Object.values(servers)) await server.close();
  });
  return servers;
}

/** Give `server` a new script; the returned function lists the requests made since. */
export function script(server: ModelServer, next: Script): () => RecordedRequest[] {
  const since = server.requests.length;
  server.setScript(next);
  return () => server.requests.slice(since);
}

/** Every request passed strict mode (none was answered with the API's 400). */
export function expectAllAccepted(requests: RecordedRequest[]): void {
  expect(requests.map((r) => r.rejected?.message ?? "accepted")).toEqual(requests.map(() => "accepted"));
}

/** The conversation a request carried, as JSON text (system prompt excluded: it lives outside for most formats). */
export const sent = (request: RecordedRequest | undefined): string => JSON.stringify(request?.messages ?? []);

/** Thinking blocks the request sent back, in the format's own shape. */
export function thinkingSent(request: RecordedRequest): unknown[] {
  const items = request.messages as Array<Record<string, unknown>>;
  switch (request.format) {
    case "anthropic-messages":
      return items.flatMap((m) =>
        Array.isArray(m["content"])
          ? (m["content"] as Array<{ type?: string }>).filter(
              (b) => b.type === "thinking" || b.type === "redacted_thinking",
            )
          : [],
      );
    case "openai-responses":
      return items.filter((item) => item["type"] === "reasoning");
    case "google-generative-ai":
      return items.flatMap((c) =>
        ((c["parts"] ?? []) as Array<{ thought?: boolean }>).filter((p) => p.thought === true),
      );
    case "openai-completions":
      return items.flatMap((m) => (m["reasoning_content"] ? [m["reasoning_content"]] : []));
  }
}

/** Streams on after the point a rule fires, long enough that the abort reaches the server first. */
export const LONG_TAIL = " And then I keep explaining at length.".repeat(150);

/**
 * Pause between the deltas of an answer a rule will cut (`delayMs`): LONG_TAIL then lasts about 14 s, so the
 * abort reaches the server before the end even on a loaded machine, where the first stream of a session can
 * stall the client for seconds (server and client share one event loop in-process). A passing run waits only
 * for the few deltas before the match.
 */
export const ABORT_PACE_MS = 10;
