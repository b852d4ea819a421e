/**
 * `pi-steer cancel` of a running tool on every provider wire format, in strict mode: the real `pi -p` with
 * the steering bridge against each server (real model ids, thinking on) and the real `pi-steer` as a second
 * process. The id `pi-steer status` lists cancels the call; on OpenAI Responses the API's own `call_…` does too.
 */
import { type CliHome, prepareCliHome, runPi, type WireFormat } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  alive,
  callsInFlight,
  runSteer,
  SLEEPING_BASH,
  sleepingBashPid,
  waitFor,
} from "../../../../extensions/steering-bridge/test/steer-cli.ts";
import { expectAllAccepted, FORMATS, STEERING_DIR, script, sent, useStrictServers } from "./helpers.ts";

const servers = useStrictServers();
let home: CliHome | undefined;
afterEach(() => {
  home?.dispose();
  home = undefined;
});

/** The id the API itself gave the call, which a host reading the stream knows (Gemini sends none). */
const API_CALL_ID: Record<WireFormat, string | undefined> = {
  "openai-completions": "call_sleepy",
  "anthropic-messages": "toolu_sleepy",
  "openai-responses": "call_sleepy",
  "google-generative-ai": undefined,
};

describe.each(FORMATS)("pi-steer cancel on %s (strict, real CLI)", (format) => {
  it("cancels a running bash sleep 30: the process is gone at once, the model is told, pi finishes", async () => {
    const apiId = API_CALL_ID[format];
    const requests = script(servers[format], [
      {
        thinking: "Sleep as asked.",
        toolCalls: [
          {
            ...(apiId ? { id: apiId } : {}),
            name: "bash",
            arguments: { command: SLEEPING_BASH },
          },
        ],
      },
      { thinking: "It was stopped.", text: "The host cancelled my sleep; finishing normally." },
    ]);
    home = prepareCliHome({ server: servers[format], settings: { defaultThinkingLevel: "medium" } });
    const pi = runPi(["-e", STEERING_DIR, "-p", "sleep for a while"], { home, timeoutMs: 90_000 });
    const pid = await sleepingBashPid(home.cwd);
    expect(alive(pid)).toBe(true);

    const calls = await callsInFlight(home);
    expect(calls).toMatchObject([{ tool: "bash" }]);
    const listed = calls[0]!.callId;
    // Cancel by the API's own id where there is one (Responses: `call_…` of pi's `call_…|fc_…`), else by the listed id.
    const cancelId = apiId ?? listed;
    const cancelled = await runSteer(["cancel", cancelId, "--reason", "user clicked stop", "--json"], home);
    const cancelledAt = Date.now();
    expect(cancelled.code, cancelled.stdout + cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ status: "cancelled", tool: "bash" });
    await waitFor(() => !alive(pid), "the sleep to be killed", 1000);
    expect(Date.now() - cancelledAt).toBeLessThan(1000);

    const result = await pi;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("finishing normally");
    const told = sent(requests()[1]);
    expect(told).toContain("was cancelled by the host: user clicked stop");
    // The model is told by an id it saw: the API's own call id, never pi's combined or made-up one.
    const named = /(Tool call \S+ \(bash\)|The bash tool call) was cancelled by the host/.exec(told)?.[1];
    expect(named).toBe(apiId ? `Tool call ${apiId} (bash)` : "The bash tool call");
    expectAllAccepted(requests());
    expect(requests()).toHaveLength(2);
  });
});
