import { CANCEL_REMINDER_TYPE, cancelReminderTextFor } from "@pi-rails/agent-core/kit";
import { closeAfterEach } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SteeringClient } from "../src/client/client.ts";
import { conversation, openBridgeSession } from "./helpers.ts";
import { alive, SLEEPING_BASH, sleepingBashPid } from "./steer-cli.ts";

const keep = closeAfterEach(afterEach);

describe("cancel the tool call in flight (patched pi)", () => {
  it("status lists the running bash call by id; cancel over the socket kills it, the model sees the cancellation, the run goes on", async () => {
    const harness = keep(
      await openBridgeSession({
        script: [
          { toolCalls: [{ id: "sleepy", name: "bash", arguments: { command: SLEEPING_BASH } }] },
          { text: "The host stopped the sleep; moving on." },
        ],
      }),
    );
    const client = keep(await SteeringClient.connect(harness.api().socketPath()!));
    const run = harness.test.prompt("sleep for a while");
    const pid = await sleepingBashPid(harness.test.cwd);
    expect(alive(pid)).toBe(true);

    const status = await client.status();
    expect(status.features.cancel).toBe(true);
    expect(status.running).toBe(true);
    expect(status.toolCallsInFlight).toMatchObject([{ callId: "sleepy", tool: "bash" }]);

    const result = await client.cancelToolCall({ callId: "sleepy", reason: "user clicked stop" });
    expect(result).toMatchObject({ status: "cancelled", callId: "sleepy", tool: "bash", reason: "user clicked stop" });
    await expect.poll(() => alive(pid), { timeout: 1000, interval: 20 }).toBe(false);
    expect(await client.cancelToolCall({ callId: "sleepy" })).toMatchObject({ status: "already_cancelled" });
    expect(await client.cancelToolCall({ callId: "never-ran" })).toMatchObject({ status: "not_found" });

    await run;
    expect(harness.server.requests).toHaveLength(2);
    const next = conversation(harness.server.requests[1]!.messages);
    const toolResult = next.find((m) => m.role === "tool");
    expect(toolResult?.text).toContain("Tool call sleepy (bash) was cancelled by the host: user clicked stop");
    // After the batch, the reminder in agent-core's words and of its custom type (pi has neither): hidden in the
    // transcript, a user-role message for the model.
    const reminderText = cancelReminderTextFor("sleepy", "bash", "user clicked stop");
    expect(next.at(-1)).toEqual({ role: "user", text: reminderText });
    const reminder = harness.test.session.messages.find(
      (m) => (m as { customType?: string }).customType === CANCEL_REMINDER_TYPE,
    );
    expect(reminder).toMatchObject({ role: "custom", content: reminderText, display: false });
    expect(JSON.stringify(harness.test.session.messages.at(-1))).toContain("moving on");
    expect((await client.status()).toolCallsInFlight).toEqual([]);
  });
});

describe("provider-native call ids (issue 21)", () => {
  it("a Responses-style call_…|fc_… call is cancelled by the API's own call_… id as well", async () => {
    const piId = "call_Qx7sKJ2mWb1nLc9d|fc_68a1f0c2d4e88190b6f0a1c2";
    const harness = keep(
      await openBridgeSession({
        script: [
          { toolCalls: [{ id: piId, name: "bash", arguments: { command: SLEEPING_BASH } }] },
          { text: "Stopped." },
        ],
      }),
    );
    const client = keep(await SteeringClient.connect(harness.api().socketPath()!));
    const run = harness.test.prompt("sleep");
    const pid = await sleepingBashPid(harness.test.cwd);
    expect((await client.status()).toolCallsInFlight).toMatchObject([{ callId: piId }]);
    expect(await client.cancelToolCall({ callId: "fc_nope" })).toMatchObject({ status: "not_found" });
    const result = await client.cancelToolCall({ callId: "call_Qx7sKJ2mWb1nLc9d", reason: "by the API id" });
    expect(result).toMatchObject({ status: "cancelled", callId: piId, tool: "bash" });
    await expect.poll(() => alive(pid), { timeout: 1000, interval: 20 }).toBe(false);
    await run;
    expect(harness.server.requests).toHaveLength(2);
  });
});
