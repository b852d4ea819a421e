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
