import { Buffer } from "node:buffer";
import type { AssistantMsg, ImagePart, ToolResultMsg, UserMsg, ViewMessage } from "../model/messages.ts";

/** Small builders for synthetic sessions in unit tests (real pi sessions are used in the behaviour tests). */
export class SessionBuilder {
  readonly messages: ViewMessage[] = [];
  #t = 1_000;
  #calls = 0;

  #now(): number {
    this.#t += 1_000;
    return this.#t;
  }

  user(text: string, images: ImagePart[] = []): this {
    const content: UserMsg["content"] = images.length ? [{ type: "text", text }, ...images] : text;
    this.messages.push({ role: "user", content, timestamp: this.#now() });
    return this;
  }

  assistant(text: string, thinking?: string): this {
    const content: AssistantMsg["content"] = [];
    if (thinking) content.push({ type: "thinking", thinking });
    content.push({ type: "text", text });
    this.messages.push({ role: "assistant", content, timestamp: this.#now(), usage: { input: 1, cacheRead: 0 } });
    return this;
  }

  /** An assistant tool call followed by its result. */
  tool(
    name: string,
    args: Record<string, unknown>,
    result: string,
    options: { images?: ImagePart[]; isError?: boolean } = {},
  ): string {
    const id = `call_${++this.#calls}`;
    this.messages.push({
      role: "assistant",
      content: [{ type: "toolCall", id, name, arguments: args }],
      timestamp: this.#now(),
    });
    const content: ToolResultMsg["content"] = [{ type: "text", text: result }, ...(options.images ?? [])];
    this.messages.push({
      role: "toolResult",
      toolCallId: id,
      toolName: name,
      content,
      isError: options.isError ?? false,
      timestamp: this.#now(),
    });
    return id;
  }

  push(message: ViewMessage): this {
    this.messages.push(message);
    return this;
  }

  /** A deep copy, as pi's context event hands one to extensions. */
  clone(): ViewMessage[] {
    return structuredClone(this.messages);
  }
}

export const image = (chars: number, mimeType = "image/png"): ImagePart => ({
  type: "image",
  mimeType,
  data: "A".repeat(chars),
});

export const text = (chars: number, word = "lorem"): string =>
  `${word} `.repeat(Math.ceil(chars / (word.length + 1))).slice(0, chars);

/** A PNG of `w`×`h` (real signature and IHDR), padded to `bytes` so its base64 is as long as a real screenshot's. */
export function png(w: number, h: number, bytes = 225_000): string {
  const head = Buffer.alloc(24);
  head.writeUInt32BE(0x89504e47, 0);
  head.writeUInt32BE(0x0d0a1a0a, 4);
  head.writeUInt32BE(13, 8);
  head.write("IHDR", 12, "latin1");
  head.writeUInt32BE(w, 16);
  head.writeUInt32BE(h, 20);
  return Buffer.concat([head, Buffer.alloc(bytes)]).toString("base64");
}
