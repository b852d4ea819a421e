/**
 * What one wire format plugs into the shared loopback server (`http-server.ts`): its route, where the
 * conversation sits in the body, its strict validator, its SSE planner and its error shape. One module
 * per format implements it; the server does the HTTP, recording, pacing and abort tracking once for all.
 */
import type { ChatMessage, ReportedUsage, ScriptedResponse, WireFormat } from "./types.ts";

/** One SSE frame as written (`event:`/`data:` lines and the blank line). `delta` marks a content delta. */
export interface PlannedFrame {
  text: string;
  delta: boolean;
  /** The usage the client knows once it has read this frame (pi-ai's terms). */
  usage?: ReportedUsage;
  /** Write it apart from the frames before (a pause first): a client that parses whole reads needs that. */
  apart?: boolean;
}

/** What a planner may read about the request it answers. */
export interface PlanContext {
  requestIndex: number;
  /** Model id of the request (body or URL). */
  model: string;
  body: Record<string, unknown>;
  /** Characters of the request's conversation, for the default usage estimate. */
  promptChars: number;
}

/** A refusal in the API's own terms: HTTP status and message (the adapter wraps it in its error shape). */
export interface StrictError {
  status: number;
  message: string;
}

export interface WireAdapter {
  readonly format: WireFormat;
  /** Path prefix of the base URL pi is given, e.g. `/v1` (`""` for Anthropic, whose SDK adds `/v1`). */
  readonly basePath: string;
  /** Whether this POST path is the format's streaming endpoint. */
  matches(path: string): boolean;
  /** The conversation part of the body (see `RecordedRequest.messages`). */
  messagesOf(body: Record<string, unknown>): ChatMessage[];
  /** Model id asked for (body field or URL segment). */
  modelOf(body: Record<string, unknown>, path: string): string | undefined;
  /** Strict mode: why the real API would refuse this body (for `model`), or undefined. */
  validate(body: Record<string, unknown>, model: string): StrictError | undefined;
  /** The frames of one streamed answer, in order. May remember what it issued (signatures, item ids). */
  plan(response: ScriptedResponse, ctx: PlanContext): PlannedFrame[];
  /** The API's error body for a status and message. */
  errorBody(status: number, message: string): unknown;
  /** The format's mid-stream error event (see `ScriptedResponse.streamError`). */
  streamError(message: string, ctx: PlanContext): PlannedFrame;
  /** Answer for a non-streaming request (`stream: false`), when the format has one. */
  complete?(response: ScriptedResponse, ctx: PlanContext): unknown;
}

/** `event: <name>\ndata: <json>\n\n`, the named-event SSE framing of Anthropic and OpenAI Responses. */
export function namedEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** `data: <json>\n\n`, the unnamed SSE framing of chat completions and Gemini. */
export function dataEvent(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** Cut `frames` after `afterDeltas` content deltas and end with `error` (the stream fails there). */
export function failAfter(frames: PlannedFrame[], afterDeltas: number, error: PlannedFrame): PlannedFrame[] {
  const kept: PlannedFrame[] = [];
  let deltas = 0;
  for (const frame of frames) {
    if (frame.delta && deltas >= afterDeltas) break;
    kept.push(frame);
    if (frame.delta) deltas++;
  }
  return [...kept, error];
}
