import {
  type CliArgs,
  type CliContext,
  type CliFailure,
  type CliIo,
  type CliOutput,
  defineCli,
  EXIT,
  resolveAgentDir,
  UsageError,
} from "@pi-rails/agent-core/kit";
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  RequestTimeoutError,
  type SteeringClient,
  withSteeringClient,
} from "../client/client.ts";
import { findSessions, resolveSession, SessionChoiceError } from "../client/discover.ts";
import type { BridgeStatus, InjectParams, Method, PendingItemSummary } from "../protocol/protocol.ts";
import * as protocol from "../protocol/protocol.ts";
import type { Ack } from "../queue/types.ts";
import { formatCheckpoint } from "../seams/seam-log.ts";

/** pi-steer's options besides the common ones. */
const OPTIONS = {
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
} as const;
type Values = CliArgs<typeof OPTIONS>["values"];
/** What a command prints for its result: the human line, and the exit code when it is not 0. */
type Shown = string | readonly [string, number];

/**
 * A pi-steer command on one protocol method: its help line, its params from the command line (a UsageError names
 * what is wrong, before anything connects), and either `show` for its one request's result or its own `run`.
 */
function command<P, R>(spec: {
  method: Method<P, R>;
  usage: readonly [string, string];
  params: (args: string[], values: Values) => P;
  show?: (result: R, params: P) => Shown;
  run?: (client: SteeringClient, params: P, io: CliContext, values: Values) => Promise<number>;
}) {
  const run = async (client: SteeringClient, params: P, io: CliContext, values: Values) => {
    if (spec.run) return spec.run(client, params, io, values);
    const result = await client.request(spec.method, params);
    const [human, code] = [spec.show!(result, params)].flat() as [string, number?];
    io.result(result, human);
    return code ?? EXIT.ok;
  };
  return {
    ...spec,
    method: spec.method as Method,
    run: run as (...a: [SteeringClient, unknown, CliContext, Values]) => Promise<number>,
  };
}

/** inject, remind and note: the text and the item flags as the method's params. */
const queue = (method: Method<InjectParams, protocol.InjectResult>, usage: readonly [string, string]) =>
  command({
    method,
    usage,
    params: (args, values) => {
      const name = usage[0].split(" ")[1];
      const content = args.join(" ");
      if (content.trim() === "") throw new UsageError(`${name} needs the text to send`);
      const note = method === protocol.PostEvent;
      if (!note && !values.mode)
        throw new UsageError(`${name} needs --mode interrupt_immediate|finish_step|audit_only`);
      if (note && values.mode)
        throw new UsageError("note takes no --mode (inbox notes are drained at pre_compact / post_compact)");
      return {
        content,
        mode: values.mode as InjectParams["mode"],
        dedupeKey: values["dedupe-key"] || undefined,
        id: values.id || undefined,
        ttlMs: integer("--ttl", values.ttl),
        leftover: values.leftover as InjectParams["leftover"],
        source: "pi-steer",
      };
    },
    show: (result) => {
      const extra = [
        result.replaced ? `replaced ${result.replaced}` : "",
        result.handedToPi ? "handed to pi's own queue (stock pi)" : "",
        result.duplicate ? "already queued or settled: nothing queued again" : "",
      ].filter(Boolean);
      return `queued ${result.id}${extra.length ? ` (${extra.join("; ")})` : ""}`;
    },
  });

type Name = keyof typeof COMMANDS;
/** pi-steer's commands by name, each on one protocol method: every method of the socket has its command. */
export const COMMANDS = {
  inject: queue(protocol.Inject, [
    "pi-steer inject <text> --mode M [--dedupe-key K] [--ttl MS] [--leftover carry|discard|audit] [--id ID]",
    "queue a message for the model (--id: a safe retry; `send` is the same)",
  ]),
  remind: queue(protocol.Remind, ["pi-steer remind <text> --mode M [...]", "queue a hidden system reminder"]),
  note: queue(protocol.PostEvent as Method<InjectParams, protocol.InjectResult>, [
    "pi-steer note <text> [--ttl MS] [...]",
    "post an inbox note (delivered at pre_compact / post_compact)",
  ]),
  status: command({
    method: protocol.Status,
    usage: ["pi-steer status", "session, iteration, tool calls in flight (with ids)"],
    params: (args) => noArgs("status", args),
    show: formatStatus,
  }),
  cancel: command({
    method: protocol.CancelToolCall,
    usage: [
      "pi-steer cancel <callId> [--reason R] [--timeout MS] [--no-reminder]",
      "cancel the tool call running now (the model is told R)",
    ],
    params: ([callId, ...rest], values) => {
      if (!callId || rest.length > 0) throw new UsageError("cancel takes exactly one tool call id");
      return {
        callId,
        // Without --reason the model is told where the cancel came from (never "cancelled by the host" twice).
        reason: values.reason || "stopped with pi-steer cancel",
        timeoutMs: integer("--timeout", values.timeout),
        ...(values["no-reminder"] ? { injectReminder: false } : {}),
      };
    },
    show: (result, params) => {
      const call = `${result.callId}${result.tool ? ` (${result.tool})` : ""}`;
      // "cancelled" only when the tool stopped; a timeout says plainly that its work may go on.
      const timeout = `timeout: ${call} did not stop within ${params.timeoutMs ?? 5000} ms; pi stopped waiting for it and the model was told it was cancelled, but its work may still be running`;
      if (result.status === "timeout") return [timeout, EXIT.refused];
      return [`${result.status}: ${call}`, result.status === "not_found" ? EXIT.refused : EXIT.ok];
    },
  }),
  pending: command({
    method: protocol.Pending,
    usage: ["pi-steer pending", "items waiting for a seam"],
    params: (args) => noArgs("pending", args),
    run: async (client, _params, io) => {
      // Every page, previews only: the list stays bounded however much content is pending.
      const items: PendingItemSummary[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.request(protocol.Pending, {
          limit: protocol.MAX_PENDING_PAGE,
          previewChars: 60,
          cursor,
        });
        items.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      const line = (i: PendingItemSummary) =>
        `${i.id}  ${i.mode ?? "inbox"}  ${i.kind}  ${JSON.stringify(i.content)}${i.truncated ? "…" : ""}`;
      io.result(items, items.length === 0 ? "nothing pending" : items.map(line).join("\n"));
      return EXIT.ok;
    },
  }),
  revoke: command({
    method: protocol.Revoke,
    usage: ["pi-steer revoke <id>", "revoke a pending item"],
    params: ([id, ...rest]) => {
      if (!id || rest.length > 0) throw new UsageError("revoke takes exactly one item id");
      return { id };
    },
    show: (result, { id }) => [
      result.status === "already_settled" ? `already ${result.state}: ${id}` : `${result.status}: ${id}`,
      result.status === "revoked" ? EXIT.ok : EXIT.refused,
    ],
  }),
  watch: command({
    method: protocol.Subscribe,
    usage: ["pi-steer watch [--count N]", "live seam passes and acknowledgements (stop after N)"],
    params: (args, values) => noArgs("watch", args, integer("--count", values.count)),
    run: (client, _params, io, values) =>
      new Promise<number>((resolve) => {
        // Exactly N with --count: events that arrive in the same read as the N-th one are not printed.
        const count = values.count === undefined ? undefined : Number(values.count);
        let seen = 0;
        let done = false;
        const finish = (code: number) => {
          done = true;
          resolve(code);
        };
        const show = (value: unknown, human: string) => {
          if (done) return;
          io.result(value, human);
          if (count !== undefined && ++seen >= count) finish(EXIT.ok);
        };
        client.on(protocol.CheckpointNotification, (c) =>
          show({ type: "checkpoint", ...c }, `seam ${formatCheckpoint(c)}`),
        );
        client.on(protocol.AckNotification, (ack) => show({ type: "ack", ...ack }, formatAck(ack)));
        client.onClose(() => finish(EXIT.ok));
        // `pi-steer watch | head -1`: once the reader is gone, stop (and free the endpoint's connection).
        io.stdoutClosed.then(() => finish(EXIT.ok));
        client.request(protocol.Subscribe, {}).then(undefined, () => finish(EXIT.usage));
      }),
  }),
};

/**
 * Names people guess for a command, with the command they mean: `send` is `inject` (a message the model reads as
 * the user), run as it.
 */
export const ALIASES: Readonly<Record<string, Name>> = { send: "inject" };

/** pi-steer (the kit's `runCli` around its commands); `--json` errors add what the socket or the session said. */
export const cli = defineCli({
  bin: "pi-steer",
  help: {
    title: "pi-steer: steer a running pi session (steering-bridge)",
    commands: [["pi-steer sessions", "live sessions of this user"], ...Object.values(COMMANDS).map((c) => c.usage)],
    options: [
      ["--session <id>", "optional with one live session in this directory or a parent of it"],
      ["--request-timeout MS", "default 10000; a suspended pi never answers"],
    ],
    notes: `Modes: interrupt_immediate (stops the next tool batch), finish_step (next iteration boundary),
       audit_only (written to the session at loop exit, never sent to the model).`,
    exit1:
      "refused (no live session, unknown id, call not found, cancel timed out, feature unavailable, queue full, no answer in time)",
  },
  options: OPTIONS,
  run: async ({ values, positionals }, io) => {
    const [typed, ...args] = positionals;
    const command = typed !== undefined && Object.hasOwn(ALIASES, typed) ? ALIASES[typed] : typed;
    const agentDir = resolveAgentDir(io.env);
    if (command === "sessions") {
      const sessions = findSessions({ agentDir });
      const lines = sessions.map((s) => `${s.sessionId}  pid ${s.pid}  ${s.cwd}  since ${s.startedAt}`);
      io.result(sessions, sessions.length === 0 ? "no live pi session with the steering bridge" : lines.join("\n"));
      return EXIT.ok;
    }
    const spec = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command as Name] : undefined;
    if (!spec) {
      const known = ["sessions", ...Object.keys(COMMANDS)].join(", ");
      throw new UsageError(
        `${command ? `unknown command "${command}"` : "a command is required"} (commands: ${known})`,
      );
    }
    const params = spec.params(args, values);
    const requestTimeoutMs = integer("--request-timeout", values["request-timeout"]) ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const { socket } = resolveSession({ agentDir, cwd: io.cwd, sessionId: values.session });
    const run = (client: SteeringClient) => spec.run(client, params, io, values);
    return await withSteeringClient(socket, run, { requestTimeoutMs, timeoutMs: requestTimeoutMs });
  },
  failure: steeringFailure,
});

export const USAGE = cli.usage;

/** Runs pi-steer with `io` (a test's buffers and folder); returns the kit's exit code. Never throws. */
export const main = (argv: readonly string[], io: CliOutput & Partial<CliIo>): Promise<number> => cli.run(argv, io);

/** What the socket, the session choice or the connection said, as an exit code and the JSON error's fields. */
function steeringFailure(error: unknown): CliFailure | undefined {
  if (error instanceof protocol.SteeringRpcError) {
    const refused = error.code === protocol.ERROR_CODES.unavailable || error.code === protocol.ERROR_CODES.queueFull;
    return { exit: refused ? EXIT.refused : EXIT.usage, kind: "rpc", details: { code: error.code, data: error.data } };
  }
  if (error instanceof SessionChoiceError) {
    // Several sessions and no --session is a usage error; no live session is a refusal.
    const exit = error.candidates.length > 1 ? EXIT.usage : EXIT.refused;
    return { exit, kind: "session", details: { candidates: error.candidates.map((s) => s.sessionId) } };
  }
  if (error instanceof RequestTimeoutError) {
    return { exit: EXIT.refused, kind: "timeout", details: { method: error.method, timeoutMs: error.timeoutMs } };
  }
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof errno === "string") return { exit: EXIT.refused, kind: "connection", details: { errno } };
  return undefined;
}

function formatStatus(status: BridgeStatus): string {
  const calls = status.toolCallsInFlight.map((c) => `  ${c.callId}  ${c.tool}  running ${Date.now() - c.startedAt} ms`);
  return [
    `session ${status.sessionId} (pid ${status.pid}) in ${status.cwd}`,
    `${status.running ? "running" : "idle"}, iteration ${status.iteration}${status.lastSeam ? `, last seam ${status.lastSeam}` : ""}, ${status.pending} pending`,
    `seams ${status.missingSeams ? `available but ${status.missingSeams.join(", ")} (stock pi)` : "available"}, cancel ${status.features.cancel ? "available" : "unavailable"}`,
    calls.length > 0 ? `tool calls in flight:\n${calls.join("\n")}` : "no tool call in flight",
  ].join("\n");
}

function formatAck(ack: Ack): string {
  if (ack.state === "delivered" || ack.state === "audited") {
    return `ack ${ack.id} ${ack.state} at ${ack.seam} #${ack.iteration}`;
  }
  if (ack.state !== "revoked") return `ack ${ack.id} ${ack.state}`;
  return `ack ${ack.id} revoked${ack.reason === "replaced" ? ` (replaced by ${ack.replacedBy})` : ""}`;
}

/** `{}` for a command that takes no arguments (after the checks of its options). */
function noArgs(command: string, args: string[], ..._checked: unknown[]): Record<string, never> {
  if (args.length > 0) throw new UsageError(`${command} takes no arguments`);
  return {};
}

function integer(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (Number.isInteger(n) && n > 0) return n;
  throw new UsageError(`${flag} must be a positive integer, got ${JSON.stringify(value)}`);
}
