/**
 * The loopback HTTP server every wire format shares: 127.0.0.1, scripted answers streamed over SSE at a
 * scripted pace, every request recorded (body, headers, how far the answer got, an early close by the
 * client, the usage reported so far, a strict-mode refusal). The format itself is a `WireAdapter`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createPromptCache } from "./prompt-cache.ts";
import type { ModelServer, ModelServerOptions, RecordedRequest, Script, ScriptedResponse } from "./types.ts";
import { scriptedUsage } from "./usage.ts";
import { failAfter, type PlanContext, type WireAdapter } from "./wire.ts";

/** Text answered once an array script has no responses left. */
export const SCRIPT_EXHAUSTED_TEXT = "(script exhausted)";

const DEFAULT_WAIT_TIMEOUT_MS = 10_000;
/** Message of a scripted mid-stream error without one. */
export const DEFAULT_STREAM_ERROR = "Overloaded";
/** Pause before a frame that must reach the client in a read of its own. */
const APART_MS = 20;

/** Optional extra GET routes of a format (e.g. chat completions' `/v1/models`). */
export type GetRoute = (path: string) => unknown | undefined;

/** Start a server for `adapter` on 127.0.0.1 (port 0 by default). Close it with `server.close()`. */
export async function startWireServer(
  adapter: WireAdapter,
  options: ModelServerOptions = {},
  getRoute?: GetRoute,
): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  const strict = options.strict === true;
  const cache = options.promptCache
    ? createPromptCache(adapter.format, options.promptCache === true ? {} : options.promptCache)
    : undefined;
  let script: Script = options.script ?? [];
  let cursor = 0;
  let active = 0;
  const requestWaiters = new Set<() => void>();
  const idleWaiters = new Set<() => void>();

  const notify = (waiters: Set<() => void>) => {
    for (const waiter of [...waiters]) waiter();
  };

  const nextResponse = async (record: RecordedRequest): Promise<ScriptedResponse> => {
    if (typeof script === "function") return script(record, record.index);
    const response = script[cursor];
    if (response === undefined) {
      record.scriptExhausted = true;
      return { text: SCRIPT_EXHAUSTED_TEXT };
    }
    cursor++;
    return response;
  };

  const sendError = (res: ServerResponse, status: number, message: string) =>
    sendJson(res, status, adapter.errorBody(status, message));

  const handleModelRequest = async (req: IncomingMessage, res: ServerResponse, path: string, raw: string) => {
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("body is not an object");
      body = parsed as Record<string, unknown>;
    } catch (error) {
      sendError(res, 400, `invalid JSON body: ${String(error)}`);
      return;
    }
    const messages = adapter.messagesOf(body);
    const record: RecordedRequest = {
      index: requests.length,
      format: adapter.format,
      method: req.method ?? "POST",
      url: req.url ?? "",
      body,
      messages,
      headers: { ...req.headers },
      response: {},
      scriptExhausted: false,
      deltasPlanned: 0,
      deltasSent: 0,
      receivedAt: performance.now(),
      deltaTimes: [],
      closedEarly: false,
      completed: false,
    };
    requests.push(record);
    notify(requestWaiters);

    let closed = false;
    const closeListeners = new Set<() => void>();
    res.on("finish", () => {
      record.completed = true;
    });
    res.on("close", () => {
      closed = true;
      if (!res.writableFinished) record.closedEarly = true;
      notify(closeListeners);
    });

    const model = adapter.modelOf(body, path) ?? options.modelId ?? "loopback-model";
    if (strict) {
      const refusal = adapter.validate(body, model);
      if (refusal) {
        record.rejected = refusal;
        sendError(res, refusal.status, refusal.message);
        return;
      }
    }

    let response: ScriptedResponse;
    try {
      response = { ...options.defaults, ...(await nextResponse(record)) };
    } catch (error) {
      response = {
        httpStatus: 500,
        errorBody: JSON.stringify(adapter.errorBody(500, `script threw: ${String(error)}`)),
      };
    }
    if (cache && !answersHttpError(response)) {
      const billed = cache.bill(body);
      if (!response.usage) {
        const completion = scriptedUsage(response, JSON.stringify(messages).length).completion_tokens;
        response = { ...response, usage: { ...billed, completion_tokens: completion } };
      }
    }
    record.response = response;
    if (closed) return;

    if (answersHttpError(response)) {
      res.writeHead(response.httpStatus, { "content-type": "application/json" });
      res.end(
        response.errorBody ??
          JSON.stringify(adapter.errorBody(response.httpStatus, `scripted HTTP ${response.httpStatus}`)),
      );
      return;
    }

    const ctx: PlanContext = {
      requestIndex: record.index,
      model,
      body,
      promptChars: JSON.stringify(messages).length,
    };

    if (adapter.complete && body["stream"] !== true) {
      sendJson(res, 200, adapter.complete(response, ctx));
      return;
    }

    const planned = adapter.plan(response, ctx);
    const frames = response.streamError
      ? failAfter(
          planned,
          response.streamError.afterDeltas ?? 0,
          adapter.streamError(response.streamError.message ?? DEFAULT_STREAM_ERROR, ctx),
        )
      : planned;
    record.deltasPlanned = frames.filter((frame) => frame.delta).length;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.flushHeaders();

    const delayMs = response.delayMs ?? 0;
    const pauseFor = (ms: number) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          closeListeners.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        closeListeners.add(done);
      });
    const pause = () => pauseFor(delayMs);

    for (const frame of frames) {
      if (frame.delta && record.deltasSent > 0 && delayMs > 0) await pause();
      if (frame.apart) await pauseFor(APART_MS);
      if (closed) return;
      res.write(frame.text);
      if (frame.delta) {
        record.deltasSent++;
        record.deltaTimes.push(performance.now());
      }
      if (frame.usage) record.usageReported = { ...frame.usage };
    }
    if (closed) return;
    res.end();
  };

  const server = createServer((req, res) => {
    active++;
    res.on("close", () => {
      active--;
      if (active === 0) notify(idleWaiters);
    });
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (req.method === "GET") {
      const answer = getRoute?.(path);
      if (answer !== undefined) {
        sendJson(res, 200, answer);
        return;
      }
    }
    if (req.method === "POST" && adapter.matches(path)) {
      const parts: Buffer[] = [];
      req.on("data", (part: Buffer) => parts.push(part));
      req.on("end", () => {
        handleModelRequest(req, res, path, Buffer.concat(parts).toString("utf8")).catch((error: unknown) => {
          if (!res.headersSent) sendError(res, 500, String(error));
          else res.destroy();
        });
      });
      return;
    }
    sendError(res, 404, `no route for ${req.method} ${path}`);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    format: adapter.format,
    baseUrl: `http://127.0.0.1:${port}${adapter.basePath}`,
    port,
    strict,
    requests,
    setScript(next: Script) {
      script = next;
      cursor = 0;
    },
    waitForRequests(n: number, timeoutMs = DEFAULT_WAIT_TIMEOUT_MS) {
      return new Promise<RecordedRequest[]>((resolve, reject) => {
        const check = () => {
          if (requests.length < n) return;
          clearTimeout(timer);
          requestWaiters.delete(check);
          resolve(requests.slice(0, n));
        };
        const timer = setTimeout(() => {
          requestWaiters.delete(check);
          reject(new Error(`model server: expected ${n} request(s) within ${timeoutMs} ms, got ${requests.length}`));
        }, timeoutMs);
        requestWaiters.add(check);
        check();
      });
    },
    waitForIdle() {
      return new Promise<void>((resolve) => {
        if (active === 0) return resolve();
        const done = () => {
          idleWaiters.delete(done);
          resolve();
        };
        idleWaiters.add(done);
      });
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/** The scripted answer is an HTTP error instead of a stream. */
function answersHttpError(response: ScriptedResponse): response is ScriptedResponse & { httpStatus: number } {
  return response.httpStatus !== undefined && response.httpStatus >= 400;
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}
