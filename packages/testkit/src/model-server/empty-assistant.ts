/**
 * The assistant messages of recorded requests that carry neither content nor tool calls: strict providers refuse a
 * request holding one, so a test asserts there are none (`expect(emptyAssistantMessages(server.requests)).toEqual([])`).
 */
export function emptyAssistantMessages(requests: readonly { messages: readonly unknown[] }[]): unknown[] {
  return requests.flatMap((request) =>
    request.messages.filter((m) => {
      const message = m as { role?: string; content?: unknown; tool_calls?: unknown };
      return message.role === "assistant" && !message.tool_calls && (message.content ?? "") === "";
    }),
  );
}
