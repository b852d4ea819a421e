import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import type { LoopSeam } from "@pi-rails/agent-core/kit";
import {
  type ChatMessage,
  closeAfterEach,
  createTestSession,
  type ModelServer,
  type Script,
  startModelServer,
  type TestSession,
} from "@pi-rails/testkit";
import { STEERING_EVENTS, type SteeringApi, type SteeringReadyEvent } from "../src/events.ts";
import steeringBridge from "../src/extension.ts";
import type { Ack, SteeringItemInput } from "../src/queue/types.ts";
import type { SteeringCheckpoint } from "../src/seams/seam-log.ts";

/** Queue `input` right after the loop passed `kind` at `iteration` (from a loop_checkpoint observer). */
export interface ScheduledInject {
  after: LoopSeam;
  iteration: number;
  input: SteeringItemInput;
}

export interface BridgeHarness {
  test: TestSession;
  server: ModelServer;
  /** The bridge API of the current session (from `steering:ready`). */
  api(): SteeringApi;
  acks: Ack[];
  /** Every seam pass as the bridge reported it (`pi-rails:steering:checkpoint`). */
  checkpoints: SteeringCheckpoint[];
  /** Ids queued by the scheduled injections, in schedule order. */
  scheduledIds: string[];
  /** The session branch as the probe saw it in session_shutdown (after the bridge's own handler). */
  shutdownEntries: unknown[];
  /** `pi.events` of the session (to act as another extension). */
  events(): ExtensionAPI["events"];
  dispose(): Promise<void>;
}

/**
 * A real pi AgentSession (testkit) with the steering bridge loaded, talking to a loopback model server, plus a
 * probe extension that records acks and seam passes through `pi.events` and can queue items at chosen seams (after
 * pi's `loop_checkpoint` of that seam).
 */
export async function openBridgeSession(
  options: {
    script?: Script;
    schedule?: ScheduledInject[];
    persist?: boolean;
    files?: Record<string, string>;
    settings?: Record<string, unknown>;
  } = {},
): Promise<BridgeHarness> {
  const server = await startModelServer({ script: options.script ?? [] });
  let api: SteeringApi | undefined;
  const acks: Ack[] = [];
  const checkpoints: SteeringCheckpoint[] = [];
  const scheduledIds: string[] = [];
  const schedule = [...(options.schedule ?? [])];
  let bus: ExtensionAPI["events"] | undefined;
  const shutdownEntries: unknown[] = [];
  const probe: ExtensionFactory = (pi: ExtensionAPI) => {
    bus = pi.events;
    pi.on("session_shutdown", (_event, ctx) => {
      shutdownEntries.push(...ctx.sessionManager.getBranch());
    });
    pi.events.on(STEERING_EVENTS.ready, (data) => {
      api = (data as SteeringReadyEvent).api;
    });
    pi.events.on(STEERING_EVENTS.ack, (data) => acks.push(data as Ack));
    pi.events.on(STEERING_EVENTS.checkpoint, (data) => checkpoints.push(data as SteeringCheckpoint));
    pi.on("loop_checkpoint", (event) => {
      for (const entry of schedule) {
        if (entry.after === event.kind && entry.iteration === event.iteration && api) {
          scheduledIds.push(api.inject(entry.input).id);
        }
      }
      for (let i = schedule.length - 1; i >= 0; i--) {
        const entry = schedule[i]!;
        if (entry.after === event.kind && entry.iteration === event.iteration) schedule.splice(i, 1);
      }
    });
  };
  let test: TestSession;
  try {
    test = await createTestSession({
      model: { kind: "loopback", server },
      extensions: [steeringBridge, probe],
      ...(options.persist ? { persist: true } : {}),
      ...(options.files ? { files: options.files } : {}),
      ...(options.settings ? { settings: options.settings } : {}),
    });
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    test,
    server,
    api: () => {
      if (!api) throw new Error("steering:ready was not emitted");
      return api;
    },
    acks,
    checkpoints,
    scheduledIds,
    events: () => bus!,
    shutdownEntries,
    async dispose() {
      await test.dispose();
      await server.close();
    },
  };
}

/**
 * `openBridgeSession` for a test file whose every test opens one: each harness is disposed after its test (the
 * testkit's closeAfterEach). Takes vitest's `afterEach`.
 */
export function bridgeSessionPerTest(
  afterEach: (hook: () => Promise<void>) => void,
): (options?: Parameters<typeof openBridgeSession>[0]) => Promise<BridgeHarness> {
  const keep = closeAfterEach(afterEach);
  return async (options) => keep(await openBridgeSession(options));
}

/** The text of every non-system message of a request, in order (custom messages arrive as user messages). */
export function conversation(messages: ChatMessage[]): { role: string; text: string }[] {
  return messages
    .filter((m) => m.role !== "system" && m.role !== "developer")
    .map((m) => ({ role: m.role, text: textOf(m.content) }));
}

export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "object" && part && "text" in part ? String(part.text) : ""))
      .join("");
  }
  return "";
}

/** Acks of one item id. */
export function acksOf(acks: Ack[], id: string): Ack[] {
  return acks.filter((ack) => ack.id === id);
}
