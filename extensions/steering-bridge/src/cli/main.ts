import {
  type CliOutput,
  EXIT,
  formatHelp,
  invocationCwd,
  type LoopCheckpoint,
  parseCliArgs,
  processOutput,
  UsageError,
  writeJson,
} from "@pi-rails/agent-core/kit";
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  RequestTimeoutError,
  type SteeringClient,
  SteeringRpcError,
  withSteeringClient,
} from "../client/client.ts";
import { findSessions, resolveSession, SessionChoiceError } from "../client/discover.ts";
import { resolveAgentDir } from "../endpoint/paths.ts";
import { ERROR_CODES, type InjectParams, MAX_PENDING_PAGE, type PendingItemSummary } from "../endpoint/protocol.ts";
import type { Ack } from "../queue/types.ts";

export const USAGE = formatHelp({
  title: "pi-steer: steer a running pi session (steering-bridge)",
  commands: [
    ["pi-steer sessions", "live sessions of this user"],
    [
      "pi-steer inject <text> --mode M [--dedupe-key K] [--ttl MS] [--leftover carry|discard|audit] [--id ID]",
      "queue a message for the model (--id: a safe retry)",
    ],
    ["pi-steer remind <text> --mode M [...]", "queue a hidden system reminder"],
    ["pi-steer note <text> [--ttl MS] [...]", "post an inbox note (delivered at pre_compact / post_compact)"],
    ["pi-steer status", "session, iteration, tool calls in flight (with ids)"],
    ["pi-steer cancel <callId> [--reason R] [--timeout MS] [--no-reminder]", "cancel the tool call running now"],
    ["pi-steer pending", "items waiting for a seam"],
    ["pi-steer revoke <id>", "revoke a pending item"],
    ["pi-steer watch [--count N]", "live seam passes and acknowledgements (stop after N)"],
  ],
  options: [
    ["--session <id>", "optional with one live session in this directory or a parent of it"],
    ["--request-timeout MS", "default 10000; a suspended pi never answers"],
  ],
  notes: `Modes: interrupt_immediate (stops the next tool batch), finish_step (next iteration boundary),
       audit_only (written to the session at loop exit, never sent to the model).`,
  exit1:
    "refused (no live session, unknown id, call not found, cancel timed out, feature unavailable, queue full, no answer in time)",
});

export interface CliIo extends CliOutput {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** Runs pi-steer; returns the kit's exit code. Never throws. With `--json`, errors are JSON on stdout too. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const json = argv.includes("--json");
  const fail = (code: number, message: string, error: Record<string, unknown> = {}, usage = false) => {
    io.stderr(`pi-steer: ${message}\n${usage ? `\n${USAGE}` : ""}`);
    if (json) writeJson(io.stdout, { error: { ...error, message } });
    return code;
  };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return fail(EXIT.usage, (error as Error).message, { kind: "usage" }, true);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  const [command, ...args] = positionals;
  const agentDir = resolveAgentDir(io.env);
  const out = (value: unknown, human: string) => io.stdout(json ? `${JSON.stringify(value)}\n` : `${human}\n`);

  if (command === "sessions") {
    const sessions = findSessions({ agentDir });
    out(
      sessions,
      sessions.length === 0
        ? "no live pi session with the steering bridge"
        : sessions.map((s) => `${s.sessionId}  pid ${s.pid}  ${s.cwd}  since ${s.startedAt}`).join("\n"),
    );
    return EXIT.ok;
  }

  try {
    const request = buildRequest(command, args, values);
    const requestTimeoutMs =
      values["request-timeout"] === undefined
        ? DEFAULT_REQUEST_TIMEOUT_MS
        : integer("--request-timeout", values["request-timeout"]);
    const session = resolveSession({
      agentDir,
      cwd: io.cwd,
      ...(values.session ? { sessionId: values.session } : {}),
    });
    return await withSteeringClient(session.socket, (client) => request(client, out, io, json), {
      requestTimeoutMs,
      timeoutMs: requestTimeoutMs,
    });
  } catch (error) {
    if (error instanceof UsageError) return fail(EXIT.usage, error.message, { kind: "usage" }, true);
    if (error instanceof SteeringRpcError) {
      const refused = error.code === ERROR_CODES.unavailable || error.code === ERROR_CODES.queueFull;
      return fail(refused ? EXIT.refused : EXIT.usage, error.message, {
        kind: "rpc",
        code: error.code,
        data: error.data,
      });
    }
    if (error instanceof SessionChoiceError) {
      // Several sessions and no --session is a usage error; no live session is a refusal.
      return fail(error.candidates.length > 1 ? EXIT.usage : EXIT.refused, error.message, {
        kind: "session",
        candidates: error.candidates.map((s) => s.sessionId),
      });
    }
    if (error instanceof RequestTimeoutError) {
      return fail(EXIT.refused, error.message, { kind: "timeout", method: error.method, timeoutMs: error.timeoutMs });
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code) return fail(EXIT.refused, (error as Error).message, { kind: "connection", errno: code });
    return fail(EXIT.internal, error instanceof Error ? error.message : String(error), { kind: "internal" });
  }
}

type Values = ReturnType<typeof parse>["values"];
type Out = (value: unknown, human: string) => void;
type Request = (client: SteeringClient, out: Out, io: CliIo, json: boolean) => Promise<number>;

function buildRequest(command: string | undefined, args: string[], values: Values): Request {
  switch (command) {
    case "inject":
    case "remind":
    case "note": {
      const content = args.join(" ");
      if (content.trim() === "") throw new UsageError(`${command} needs the text to send`);
      const params: InjectParams = { content } as InjectParams;
      if (command !== "note") {
        if (!values.mode) throw new UsageError(`${command} needs --mode interrupt_immediate|finish_step|audit_only`);
        params.mode = values.mode as InjectParams["mode"];
      } else if (values.mode) {
        throw new UsageError("note takes no --mode (inbox notes are drained at pre_compact / post_compact)");
      }
      if (values["dedupe-key"]) params.dedupeKey = values["dedupe-key"];
      if (values.id) params.id = values.id;
      if (values.ttl !== undefined) params.ttlMs = integer("--ttl", values.ttl);
      if (values.leftover) params.leftover = values.leftover as InjectParams["leftover"];
      params.source = "pi-steer";
      return async (client, out) => {
        const result =
          command === "inject"
            ? await client.inject(params)
            : command === "remind"
              ? await client.remind(params)
              : await client.postEvent(params);
        const extra = [
          result.replaced ? `replaced ${result.replaced}` : "",
          result.handedToPi ? "handed to pi's own queue (stock pi)" : "",
          result.duplicate ? "already queued or settled: nothing queued again" : "",
        ].filter(Boolean);
        out(result, `queued ${result.id}${extra.length ? ` (${extra.join("; ")})` : ""}`);
        return EXIT.ok;
      };
    }
    case "status":
      noArgs(command, args);
      return async (client, out) => {
        const status = await client.status();
        const calls = status.toolCallsInFlight.map(
          (c) => `  ${c.callId}  ${c.tool}  running ${Date.now() - c.startedAt} ms`,
        );
        out(
          status,
          [
            `session ${status.sessionId} (pid ${status.pid}) in ${status.cwd}`,
            `${status.running ? "running" : "idle"}, iteration ${status.iteration}${status.lastSeam ? `, last seam ${status.lastSeam}` : ""}, ${status.pending} pending`,
            `seams ${status.features.seams ? "available" : "unavailable (stock pi)"}, cancel ${status.features.cancel ? "available" : "unavailable"}`,
            calls.length > 0 ? `tool calls in flight:\n${calls.join("\n")}` : "no tool call in flight",
          ].join("\n"),
        );
        return EXIT.ok;
      };
    case "cancel": {
      const [callId, ...rest] = args;
      if (!callId || rest.length > 0) throw new UsageError("cancel takes exactly one tool call id");
      const params: { callId: string; reason?: string; timeoutMs?: number; injectReminder?: boolean } = { callId };
      if (values.reason) params.reason = values.reason;
      if (values.timeout !== undefined) params.timeoutMs = integer("--timeout", values.timeout);
      if (values["no-reminder"]) params.injectReminder = false;
      return async (client, out) => {
        const result = await client.cancelToolCall(params);
        const call = `${result.callId}${result.tool ? ` (${result.tool})` : ""}`;
        // "cancelled" only when the tool stopped; a timeout says plainly that its work may go on.
        out(
          result,
          result.status === "timeout"
            ? `timeout: ${call} did not stop within ${params.timeoutMs ?? 5000} ms; pi stopped waiting for it and the model was told it was cancelled, but its work may still be running`
            : `${result.status}: ${call}`,
        );
        return result.status === "not_found" || result.status === "timeout" ? EXIT.refused : EXIT.ok;
      };
    }
    case "pending":
      noArgs(command, args);
      return async (client, out) => {
        // Every page, previews only: the list stays bounded however much content is pending.
        const items: PendingItemSummary[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.pending({
            limit: MAX_PENDING_PAGE,
            previewChars: 60,
            ...(cursor ? { cursor } : {}),
          });
          items.push(...page.items);
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        out(
          items,
          items.length === 0
            ? "nothing pending"
            : items
                .map(
                  (i) =>
                    `${i.id}  ${i.mode ?? "inbox"}  ${i.kind}  ${JSON.stringify(i.content)}${i.truncated ? "…" : ""}`,
                )
                .join("\n"),
        );
        return EXIT.ok;
      };
    case "revoke": {
      const [id, ...rest] = args;
      if (!id || rest.length > 0) throw new UsageError("revoke takes exactly one item id");
      return async (client, out) => {
        const result = await client.revoke(id);
        out(result, result.status === "already_settled" ? `already ${result.state}: ${id}` : `${result.status}: ${id}`);
        return result.status === "revoked" ? EXIT.ok : EXIT.refused;
      };
    }
    case "watch": {
      noArgs(command, args);
      const count = values.count === undefined ? undefined : integer("--count", values.count);
      return (client, out) =>
        new Promise<number>((resolve) => {
          let seen = 0;
          const done = () => {
            seen++;
            if (count !== undefined && seen >= count) resolve(EXIT.ok);
          };
          client.on("steer/checkpoint", (c: LoopCheckpoint) => {
            out({ type: "checkpoint", ...c }, formatCheckpoint(c));
            done();
          });
          client.on("steer/ack", (ack: Ack) => {
            out({ type: "ack", ...ack }, formatAck(ack));
            done();
          });
          client.onClose(() => resolve(EXIT.ok));
          client.subscribe({}).then(undefined, () => resolve(EXIT.usage));
        });
    }
    default:
      throw new UsageError(command ? `unknown command "${command}"` : "a command is required");
  }
}

function formatCheckpoint(c: LoopCheckpoint): string {
  const extra = [
    c.delivered ? `delivered ${c.delivered}` : "",
    c.inboxDelivered ? `inbox ${c.inboxDelivered}` : "",
    c.dispatchSkipped ? "tool batch skipped" : "",
  ].filter(Boolean);
  return `seam #${c.iteration} ${c.kind}${extra.length ? ` (${extra.join(", ")})` : ""}`;
}

function formatAck(ack: Ack): string {
  switch (ack.state) {
    case "delivered":
    case "audited":
      return `ack ${ack.id} ${ack.state} at ${ack.seam} #${ack.iteration}`;
    case "revoked":
      return `ack ${ack.id} revoked${ack.reason === "replaced" ? ` (replaced by ${ack.replacedBy})` : ""}`;
    default:
      return `ack ${ack.id} ${ack.state}`;
  }
}

function noArgs(command: string, args: string[]): void {
  if (args.length > 0) throw new UsageError(`${command} takes no arguments`);
}

function integer(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`${flag} must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

function parse(argv: string[]) {
  return parseCliArgs(argv, {
    session: { type: "string" },
    mode: { type: "string" },
    "dedupe-key": { type: "string" },
    id: { type: "string" },
    ttl: { type: "string" },
    leftover: { type: "string" },
    reason: { type: "string" },
    timeout: { type: "string" },
    "no-reminder": { type: "boolean" },
    count: { type: "string" },
    "request-timeout": { type: "string" },
  });
}

/** The process-backed IO for the bin: quiet on a closed pipe, in the folder `pnpm pi-steer` was typed in. */
export function processIo(): CliIo {
  return { ...processOutput(), cwd: invocationCwd("pi-steer"), env: process.env };
}
