import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ToolCallRegistry } from "./call-registry.ts";
import {
  cancelledCallText,
  cancelReminderTextFor,
  DEFAULT_CANCEL_REASON,
  describeCancelledCall,
  hostCancellationOf,
  isCancelledByHost,
  modelFacingCallId,
} from "./cancelled.ts";

/** What a cancelled call returns through the registry, worded with describeCancelledCall. */
async function cancelledToolResult(callId: string, tool: string, reason: string) {
  const registry = new ToolCallRegistry({ describe: describeCancelledCall, onReminder: () => {} });
  const waiting = {
    name: tool,
    execute: (_id: string, _args: unknown, signal?: AbortSignal) =>
      new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted")))),
  };
  const running = registry.wrap(waiting).execute(callId, {}, undefined);
  await registry.cancel(callId, { reason });
  return running as Promise<{ details: unknown; content: unknown }>;
}

describe("isCancelledByHost", () => {
  it("recognises the result the loop builds for a cancelled call", async () => {
    const result = await cancelledToolResult("call_1", "bash", "user clicked stop");
    expect(isCancelledByHost(result.details)).toBe(true);
    expect(hostCancellationOf(result.details)).toEqual({ byHost: true, reason: "user clicked stop" });
    expect(result.content).toEqual([
      { type: "text", text: "Tool call call_1 (bash) was cancelled by the host: user clicked stop" },
    ]);
  });

  it('a cancel without a reason says so once, not "cancelled by the host: cancelled by the host"', () => {
    expect(cancelledCallText("call_1", "bash", DEFAULT_CANCEL_REASON)).toBe(
      "Tool call call_1 (bash) was cancelled by the host",
    );
    expect(cancelledCallText("call_1", "bash", "  ")).toBe("Tool call call_1 (bash) was cancelled by the host");
    expect(cancelReminderTextFor("call_1", "bash", DEFAULT_CANCEL_REASON)).toMatch(
      /^The host cancelled tool call call_1 \(bash\) while it ran\. This was not a tool failure/,
    );
  });

  it("says no for ordinary details, tool errors and look-alikes", () => {
    for (const details of [undefined, null, {}, "cancelled", { cancelled: true }, { cancelled: { byHost: "yes" } }]) {
      expect(isCancelledByHost(details)).toBe(false);
    }
    expect(isCancelledByHost({ cancelled: { byHost: true } })).toBe(false);
  });
});

/** pi-ai's own source (this package's pinned copy), to pin the id shapes below to what pi-ai really builds. */
function piAiSource(file: string): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return readFileSync(join(here, "../../node_modules/@earendil-works/pi-ai/dist/api", file), "utf8");
}

describe("the id the model knows, in the cancel text (issue 21)", () => {
  it("pi-ai 1.6 still builds the id shapes these rules read", () => {
    // OpenAI Responses: pi's id joins the API's call_id and the output item's id.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: pi-ai's source text, matched literally
    expect(piAiSource("openai-responses-shared.js")).toContain("id: `${item.call_id}|${item.id}`");
    // Gemini: a call the API sent without an id gets one made up.
    expect(piAiSource("google-generative-ai.js")).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: pi-ai's source text, matched literally
      "`${part.functionCall.name}_${Date.now()}_${++toolCallCounter}`",
    );
  });

  it("OpenAI Responses: the model is shown call_…, never the combined call_…|fc_…", () => {
    const id = "call_Qx7sKJ2mWb1nLc9d|fc_68a1f0c2d4e88190b6f0a1c2d3e4f5a6";
    expect(modelFacingCallId(id, "bash")).toBe("call_Qx7sKJ2mWb1nLc9d");
    const text = cancelledCallText(id, "bash", "user clicked stop");
    expect(text).toBe("Tool call call_Qx7sKJ2mWb1nLc9d (bash) was cancelled by the host: user clicked stop");
    expect(text).not.toContain("fc_");
    expect(cancelReminderTextFor(id, "bash", "stop")).toContain("tool call call_Qx7sKJ2mWb1nLc9d (bash)");
  });

  it("Gemini: a made-up bash_<ms>_<n> id is never named; an id the API sent is", () => {
    const madeUp = `bash_${Date.now()}_3`;
    expect(modelFacingCallId(madeUp, "bash")).toBeUndefined();
    const text = cancelledCallText(madeUp, "bash", "user clicked stop");
    expect(text).toBe("The bash tool call was cancelled by the host: user clicked stop");
    expect(text).not.toContain(madeUp);
    expect(cancelReminderTextFor(madeUp, "bash", "stop")).toBe(
      "The host cancelled a bash tool call while it ran: stop. This was not a tool failure; do not run it again unless asked to.",
    );
    // An id the Gemini API did send, and look-alikes of other tools, are the model's own: named as they are.
    expect(modelFacingCallId("9f2c1a7e-call", "bash")).toBe("9f2c1a7e-call");
    const otherTool = `read_${Date.now()}_1`;
    expect(modelFacingCallId(otherTool, "bash")).toBe(otherTool);
  });

  it("Anthropic and chat-completions ids are the provider's own and are named unchanged", async () => {
    expect(modelFacingCallId("toolu_01A09q90qw90lq917835lq9", "bash")).toBe("toolu_01A09q90qw90lq917835lq9");
    expect(modelFacingCallId("call_abc123", "read")).toBe("call_abc123");
    // Same words as the loop's cancelled result for such ids.
    expect([{ type: "text", text: cancelledCallText("call_1", "bash", "user clicked stop") }]).toEqual(
      (await cancelledToolResult("call_1", "bash", "user clicked stop")).content,
    );
  });

  it("describeCancelledCall gives the patch's describe hook both texts, by the same rule, and the reminder's type", () => {
    const madeUp = `bash_${Date.now()}_3`;
    expect(describeCancelledCall({ callId: madeUp, tool: "bash", reason: "stop" })).toEqual({
      result: "The bash tool call was cancelled by the host: stop",
      reminder: cancelReminderTextFor(madeUp, "bash", "stop"),
      customType: "tool-call-cancelled",
    });
    const responses = describeCancelledCall({ callId: "call_1|fc_1", tool: "read", reason: "r" });
    expect(JSON.stringify(responses)).not.toContain("fc_1");
  });
});
