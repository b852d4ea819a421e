import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { registerFauxProvider, streamSimple } from "@earendil-works/pi-ai/compat";
import type { AgentEvent, AgentMessage, StreamFn } from "../src/index.ts";

export { fauxAssistantMessage };

/** pi 1.6's Agent takes its stream function: pi-ai's, which reaches the registered faux provider. */
export const streamFn: StreamFn = streamSimple;

/** The conversation without pi 1.6's system messages (the prompt and the tool declarations). */
export function conversation<T extends { role: string }>(messages: readonly T[]): T[] {
  return messages.filter((message) => message.role !== "system");
}

/** A JSON schema object with the given string properties, all required. */
export function stringsSchema(...names: string[]) {
  return {
    type: "object" as const,
    properties: Object.fromEntries(names.map((name) => [name, { type: "string" as const }])),
    required: names,
  };
}

export type { AgentMessage };

/** A faux provider streaming 4-character deltas (tokenSize 1), unregistered by the caller. */
export function fauxProvider(options: { tokensPerSecond?: number } = {}) {
  return registerFauxProvider({
    tokenSize: { min: 1, max: 1 },
    models: [{ id: "faux-1" }],
    ...(options.tokensPerSecond ? { tokensPerSecond: options.tokensPerSecond } : {}),
  });
}

/** Per request: how many delta events the provider produced, and how many the loop actually pulled. */
export interface RequestTally {
  produced: number;
  consumed: number;
}

/**
 * Wraps pi-ai's real streamSimple and counts, for every request, the deltas the provider pushed into its
 * stream against the deltas the loop read out of it.
 */
export function countingStream(): { streamFn: StreamFn; requests: RequestTally[] } {
  const requests: RequestTally[] = [];
  const isDelta = (type: string) => type === "text_delta" || type === "thinking_delta" || type === "toolcall_delta";
  const streamFn: StreamFn = (model, context, options) => {
    const stream = streamSimple(model, context, options);
    const tally: RequestTally = { produced: 0, consumed: 0 };
    requests.push(tally);
    const push = stream.push.bind(stream);
    stream.push = (event) => {
      if (isDelta(event.type)) tally.produced++;
      push(event);
    };
    const iterate = stream[Symbol.asyncIterator].bind(stream) as () => AsyncGenerator<{ type: string }>;
    (stream as { [Symbol.asyncIterator]: unknown })[Symbol.asyncIterator] = async function* () {
      for await (const event of iterate()) {
        if (isDelta(event.type)) tally.consumed++;
        yield event;
      }
    };
    return stream;
  };
  return { streamFn, requests };
}

/** Collects every agent event in order. */
export function recordEvents(agent: { subscribe(listener: (event: AgentEvent) => void): () => void }): AgentEvent[] {
  const events: AgentEvent[] = [];
  agent.subscribe((event) => {
    events.push(event);
  });
  return events;
}

export function textOf(message: unknown): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block): block is { type: "text"; text: string } => block?.type === "text")
    .map((block) => block.text)
    .join("");
}
