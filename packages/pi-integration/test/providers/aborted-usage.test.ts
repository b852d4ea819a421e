/**
 * Aborted attempts are paid for: on every wire format, after a pi-ttsr interrupt and retry, `stream_abort`
 * carries the usage the server had billed for the aborted attempt (what its stream had told the client when
 * pi cut it: Anthropic input and cache usage from `message_start`, Gemini the prompt with every chunk; chat
 * completions and Responses report usage only at the end), and the session's tokens and cost equal the sum
 * the server billed over all attempts, the aborted one included.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { createTestSession, type RecordedRequest, type ReportedUsage, type TestSession } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  ABORT_PACE_MS,
  expectAllAccepted,
  FORMATS,
  LONG_TAIL,
  ruleFile,
  script,
  TTSR_DIR,
  useStrictServers,
} from "./helpers.ts";

const servers = useStrictServers();
let t: TestSession | undefined;
afterEach(async () => {
  await t?.dispose();
  t = undefined;
});

const NO_EVAL = ruleFile({ condition: "\\beval\\(", scope: "text" }, "Never call eval().");
const ZERO: ReportedUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

function billed(requests: RecordedRequest[]): ReportedUsage {
  return requests.reduce<ReportedUsage>((sum, r) => {
    const u = r.usageReported ?? ZERO;
    return {
      input: sum.input + u.input,
      output: sum.output + u.output,
      cacheRead: sum.cacheRead + u.cacheRead,
      cacheWrite: sum.cacheWrite + u.cacheWrite,
    };
  }, ZERO);
}

/** One interrupted turn: the first attempt is aborted by a pi-ttsr rule, the retry completes. */
async function interruptedTurn(format: (typeof FORMATS)[number], contextMode: "discard" | "keep" = "discard") {
  const requests = script(servers[format], [
    {
      thinking: "Plan.",
      text: `Just eval(input) it.${LONG_TAIL}`,
      delayMs: ABORT_PACE_MS,
      usage: { prompt_tokens: 1000, completion_tokens: 600, cache_read_tokens: 4000, cache_write_tokens: 800 },
    },
    {
      thinking: "Parse.",
      text: "Use JSON.parse(input).",
      usage: { prompt_tokens: 1100, completion_tokens: 20, cache_read_tokens: 4800, cache_write_tokens: 0 },
    },
  ]);
  const aborts: Array<{ usage?: Partial<ReportedUsage> }> = [];
  t = await createTestSession({
    model: { kind: "provider", server: servers[format] },
    thinkingLevel: "medium",
    extensionPaths: [TTSR_DIR],
    extensions: [
      (pi: ExtensionAPI) => {
        pi.on("stream_abort", (event) => void aborts.push(event as (typeof aborts)[number]));
      },
    ],
    files: { ".pi/rules/no-eval.md": NO_EVAL },
    projectSettings: { ttsr: { contextMode } },
  });
  await t.prompt("parse this");
  const [aborted, retry] = requests();
  expect(aborted?.closedEarly).toBe(true);
  expect(retry?.completed).toBe(true);
  expectAllAccepted(requests());
  return { requests: requests(), aborted: aborted!, aborts, session: t };
}

describe.each(FORMATS)("usage of aborted attempts on %s (strict)", (format) => {
  it("stream_abort carries the usage the server had billed for the aborted attempt", async () => {
    const { aborted, aborts } = await interruptedTurn(format);
    if (format === "anthropic-messages" || format === "google-generative-ai") {
      // Billed for its prompt (and Anthropic's cache write) before any text: pi knows it.
      expect(aborted.usageReported).toMatchObject({ input: 1000, cacheRead: 4000 });
    } else {
      // Chat completions and Responses report usage only at the end: the aborted attempt told nothing.
      expect(aborted.usageReported).toBeUndefined();
    }
    expect(aborts).toHaveLength(1);
    expect(aborts[0]?.usage).toMatchObject(aborted.usageReported ?? ZERO);
  });
});

describe.each(FORMATS)("session totals with aborted attempts on %s (strict)", (format) => {
  it.each(["discard", "keep"] as const)(
    "contextMode %s: the session's tokens and cost are what the server billed over all attempts, the aborted one included",
    async (contextMode) => {
      const { requests, session } = await interruptedTurn(format, contextMode);
      const expected = billed(requests);
      const stats = session.session.getSessionStats();
      expect(stats.tokens).toMatchObject(expected);
      const price = session.model.cost;
      const cost =
        (expected.input * price.input +
          expected.output * price.output +
          expected.cacheRead * price.cacheRead +
          expected.cacheWrite * price.cacheWrite) /
        1_000_000;
      expect(stats.cost).toBeCloseTo(cost, 9);
    },
  );
});
