import { describe, expect, it } from "vitest";
import { validateAnthropicMessagesRequest } from "./anthropic-messages.ts";
import { validateChatCompletionsRequest } from "./chat-completions.ts";
import { validateGoogleGenerativeAIRequest } from "./google-generative-ai.ts";
import { newIssuedResponsesItems, validateOpenAIResponsesRequest } from "./openai-responses.ts";
import { sealText, signText } from "./signatures.ts";

const msg = (result: { message: string } | undefined) => result?.message;

describe("validateChatCompletionsRequest", () => {
  const call = { role: "assistant", tool_calls: [{ id: "call_1", type: "function" }] };
  it("accepts paired calls and results", () => {
    expect(
      validateChatCompletionsRequest({
        messages: [{ role: "user", content: "hi" }, call, { role: "tool", tool_call_id: "call_1" }],
      }),
    ).toBeUndefined();
  });
  it("refuses empty messages, a result without call, a call without result", () => {
    expect(msg(validateChatCompletionsRequest({ messages: [] }))).toBe("[] is too short - 'messages'");
    expect(msg(validateChatCompletionsRequest({ messages: [{ role: "tool", tool_call_id: "x" }] }))).toMatch(
      /must be a response to a preceeding message with 'tool_calls'/,
    );
    expect(msg(validateChatCompletionsRequest({ messages: [call, { role: "user", content: "?" }] }))).toMatch(
      /did not have response messages: call_1$/,
    );
  });
  it("refuses empty content: an empty parts array, an assistant message with neither content nor tool calls", () => {
    const user = { role: "user", content: "hi" };
    expect(msg(validateChatCompletionsRequest({ messages: [{ role: "user", content: [] }] }))).toMatch(
      /^Invalid 'messages\[0\]\.content': empty array/,
    );
    expect(msg(validateChatCompletionsRequest({ messages: [user, { role: "assistant", content: null }] }))).toBe(
      "Invalid value for 'messages[1].content': expected a string, got null.",
    );
    expect(msg(validateChatCompletionsRequest({ messages: [user, { role: "assistant" }, user] }))).toMatch(/got null/);
    // A call without text is fine, and so is an empty string.
    const paired = [user, { ...call, content: null }, { role: "tool", tool_call_id: "call_1", content: "ok" }];
    expect(validateChatCompletionsRequest({ messages: paired })).toBeUndefined();
    expect(validateChatCompletionsRequest({ messages: [user, { role: "assistant", content: "" }] })).toBeUndefined();
  });
});

describe("validateAnthropicMessagesRequest", () => {
  const thinking = (text: string, signature?: string) => ({
    type: "thinking",
    thinking: text,
    ...(signature !== undefined ? { signature } : {}),
  });
  const use = { type: "tool_use", id: "toolu_1", name: "read", input: {} };
  const result = { type: "tool_result", tool_use_id: "toolu_1", content: "ok" };
  it("accepts a signed thinking block and a paired tool_use / tool_result", () => {
    expect(
      validateAnthropicMessagesRequest({
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: [thinking("t", signText("t")), use] },
          { role: "user", content: [result] },
        ],
      }),
    ).toBeUndefined();
  });
  it("refuses empty content, unsigned or changed thinking, unpaired tool blocks", () => {
    expect(msg(validateAnthropicMessagesRequest({ messages: [] }))).toMatch(/at least one message/);
    expect(msg(validateAnthropicMessagesRequest({ messages: [{ role: "user", content: [] }] }))).toBe(
      "messages.0: all messages must have non-empty content except for the optional final assistant message",
    );
    expect(
      msg(validateAnthropicMessagesRequest({ messages: [{ role: "user", content: [{ type: "text", text: "" }] }] })),
    ).toBe("messages: text content blocks must be non-empty");
    const assistant = (block: unknown) => ({
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [block, { type: "text", text: "x" }] },
      ],
    });
    expect(msg(validateAnthropicMessagesRequest(assistant(thinking("partial"))))).toBe(
      "messages.1.content.0.thinking.signature: Field required",
    );
    expect(msg(validateAnthropicMessagesRequest(assistant(thinking("changed", signText("original")))))).toBe(
      "messages.1.content.0: Invalid `signature` in `thinking` block",
    );
    expect(
      msg(
        validateAnthropicMessagesRequest({
          messages: [
            { role: "user", content: "hi" },
            { role: "assistant", content: [use] },
            { role: "user", content: "?" },
          ],
        }),
      ),
    ).toMatch(/^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1\./);
    const redacted = (data: string) => ({
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [
            { type: "redacted_thinking", data },
            { type: "text", text: "x" },
          ],
        },
      ],
    });
    expect(validateAnthropicMessagesRequest(redacted(sealText("hidden")))).toBeUndefined();
    expect(msg(validateAnthropicMessagesRequest(redacted(`${sealText("hidden").slice(0, -2)}xx`)))).toBe(
      "messages.1.content.0: Invalid `data` in `redacted_thinking` block",
    );
    const loop = (first: unknown) => ({
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [first, use] },
        { role: "user", content: [result] },
      ],
    });
    expect(validateAnthropicMessagesRequest(loop(thinking("t", signText("t"))))).toBeUndefined();
    expect(msg(validateAnthropicMessagesRequest(loop({ type: "text", text: "t" })))).toMatch(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `text`\. When `thinking` is enabled/,
    );
    expect(
      validateAnthropicMessagesRequest({ ...loop({ type: "text", text: "t" }), thinking: { type: "disabled" } }),
    ).toBeUndefined();
    expect(
      msg(
        validateAnthropicMessagesRequest({
          messages: [
            { role: "user", content: "hi" },
            {
              role: "assistant",
              content: [{ type: "text", text: "a" }, thinking("t", signText("t")), { type: "text", text: "b" }],
            },
          ],
        }),
      ),
    ).toBe(
      "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found text.",
    );
    expect(
      msg(
        validateAnthropicMessagesRequest({
          messages: [
            { role: "user", content: "hi" },
            { role: "assistant", content: [thinking("t", signText("t"))] },
            { role: "user", content: "go" },
          ],
        }),
      ),
    ).toBe("messages.1: The final block in an assistant message cannot be `thinking`.");
    expect(msg(validateAnthropicMessagesRequest({ messages: [{ role: "user", content: [result] }] }))).toMatch(
      /^messages\.0\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1\./,
    );
  });
});

describe("validateOpenAIResponsesRequest", () => {
  const issued = newIssuedResponsesItems();
  issued.reasoning.set("rs_1", "enc");
  issued.functionCallReasoning.set("fc_1", "rs_1");
  const reasoning = { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "enc" };
  const fc = { type: "function_call", id: "fc_1", call_id: "call_1", name: "read", arguments: "{}" };
  const out = { type: "function_call_output", call_id: "call_1", output: "ok" };
  const userItem = { role: "user", content: [{ type: "input_text", text: "hi" }] };
  it("accepts reasoning + function_call + output", () => {
    expect(validateOpenAIResponsesRequest({ input: [userItem, reasoning, fc, out] }, issued)).toBeUndefined();
  });
  it("refuses empty input, a call without its reasoning, changed or unknown reasoning, unpaired calls and outputs", () => {
    expect(msg(validateOpenAIResponsesRequest({ input: [] }, issued))).toMatch(/^Invalid 'input': empty array/);
    expect(msg(validateOpenAIResponsesRequest({ input: [userItem, fc, out] }, issued))).toBe(
      "Item 'fc_1' of type 'function_call' was provided without its required 'reasoning' item: 'rs_1'.",
    );
    expect(
      msg(
        validateOpenAIResponsesRequest(
          { input: [userItem, { ...reasoning, encrypted_content: "x" }, fc, out] },
          issued,
        ),
      ),
    ).toBe("The encrypted content for item rs_1 could not be verified.");
    expect(
      msg(validateOpenAIResponsesRequest({ input: [userItem, { ...reasoning, id: "rs_9" }, fc, out] }, issued)),
    ).toMatch(/^Item with id 'rs_9' not found\. Items are not persisted when `store` is set to false/);
    expect(msg(validateOpenAIResponsesRequest({ input: [userItem, reasoning] }, issued))).toBe(
      "Item 'rs_1' of type 'reasoning' was provided without its required following item.",
    );
    expect(msg(validateOpenAIResponsesRequest({ input: [userItem, out] }, issued))).toBe(
      "No tool call found for function call output with call_id call_1.",
    );
    expect(msg(validateOpenAIResponsesRequest({ input: [userItem, reasoning, fc] }, issued))).toBe(
      "No tool output found for function call call_1.",
    );
  });
});

describe("validateGoogleGenerativeAIRequest", () => {
  const issued = new Set(["c2ln"]);
  const userTurn = { role: "user", parts: [{ text: "hi" }] };
  const callTurn = (signature?: string) => ({
    role: "model",
    parts: [{ functionCall: { name: "read", args: {} }, ...(signature ? { thoughtSignature: signature } : {}) }],
  });
  const responseTurn = { role: "user", parts: [{ functionResponse: { name: "read", response: { output: "ok" } } }] };
  it("accepts a signed call turn followed by its response", () => {
    expect(
      validateGoogleGenerativeAIRequest({ contents: [userTurn, callTurn("c2ln"), responseTurn] }, issued),
    ).toBeUndefined();
    expect(
      validateGoogleGenerativeAIRequest({ contents: [userTurn, callTurn(), responseTurn] }, issued, "gemini-2.5-pro"),
    ).toBeUndefined();
  });
  it("refuses empty contents or parts, a corrupted signature, misplaced responses, an unsigned Gemini 3 call", () => {
    expect(msg(validateGoogleGenerativeAIRequest({ contents: [] }, issued))).toMatch(/contents is not specified/);
    expect(msg(validateGoogleGenerativeAIRequest({ contents: [{ role: "user", parts: [] }] }, issued))).toMatch(
      /contents\[0\]\.parts: contents\.parts must not be empty/,
    );
    expect(
      msg(validateGoogleGenerativeAIRequest({ contents: [userTurn, callTurn("AAAA"), responseTurn] }, issued)),
    ).toBe("Corrupted thought signature.");
    expect(msg(validateGoogleGenerativeAIRequest({ contents: [userTurn, responseTurn] }, issued))).toMatch(
      /function response turn comes immediately after a function call turn/,
    );
    expect(
      msg(
        validateGoogleGenerativeAIRequest(
          { contents: [userTurn, callTurn(), responseTurn] },
          issued,
          "gemini-3-pro-preview",
        ),
      ),
    ).toMatch(/^Function call is missing a thought_signature in functionCall parts\..*`default_api:read`/);
  });
});
