/**
 * A loopback OpenAI-compatible chat-completions server that streams scripted answers over SSE.
 * It lets tests drive pi's real openai-completions provider (in-process or the real CLI) with
 * no network, and see exactly what pi sent and how much of each answer it read.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ChunkContext, completionObject, planChunks } from "./chunks.ts";
import type {
  ChatMessage,
  ModelServer,
  ModelServerOptions,
  RecordedRequest,
  Script,
  ScriptedResponse,
} from "./types.ts";

/** Text answered once an array script has no responses left. */
export const SCRIPT_EXHAUSTED_TEXT = "(script exhausted)";

const DEFAULT_MODEL_ID = "loopback-model";
const DEFAULT_WAIT_TIMEOUT_MS = 10_000;

/** Start a server on 127.0.0.1 (port 0 by default). Close it with `server.close()`. */
export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const modelId = options.modelId ?? DEFAULT_MODEL_ID;
  const requests: RecordedRequest[] = [];
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

  const handleCompletion = async (req: IncomingMessage, res: ServerResponse, raw: string) => {
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("body is not an object");
      body = parsed as Record<string, unknown>;
    } catch (error) {
      sendJson(res, 400, { error: { message: `invalid JSON body: ${String(error)}`, type: "invalid_request_error" } });
      return;
    }
    const messages = Array.isArray(body["messages"]) ? (body["messages"] as ChatMessage[]) : [];
    const record: RecordedRequest = {
      index: requests.length,
      method: req.method ?? "POST",
      url: req.url ?? "",
      body,
      messages,
      headers: { ...req.headers },
      response: {},
      scriptExhausted: false,
      deltasPlanned: 0,
      deltasSent: 0,
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

    let response: ScriptedResponse;
    try {
      response = { ...options.defaults, ...(await nextResponse(record)) };
    } catch (error) {
      response = {
        httpStatus: 500,
        errorBody: JSON.stringify({ error: { message: `script threw: ${String(error)}` } }),
      };
    }
    record.response = response;
    if (closed) return;

    if (response.httpStatus !== undefined && response.httpStatus >= 400) {
      res.writeHead(response.httpStatus, { "content-type": "application/json" });
      res.end(
        response.errorBody ??
          JSON.stringify({ error: { message: `scripted HTTP ${response.httpStatus}`, type: "server_error" } }),
      );
      return;
    }

    const streamOptions = body["stream_options"] as { include_usage?: boolean } | undefined;
    const ctx: ChunkContext = {
      id: `chatcmpl-loopback-${record.index}-${randomUUID().slice(0, 8)}`,
      model: typeof body["model"] === "string" ? body["model"] : modelId,
      created: Math.floor(Date.now() / 1000),
      requestIndex: record.index,
      includeUsage: streamOptions?.include_usage === true,
      promptChars: JSON.stringify(messages).length,
    };

    if (body["stream"] !== true) {
      sendJson(res, 200, completionObject(response, ctx));
      return;
    }

    const chunks = planChunks(response, ctx);
    record.deltasPlanned = chunks.filter((chunk) => chunk.delta).length;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.flushHeaders();

    const delayMs = response.delayMs ?? 0;
    const pause = () =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          closeListeners.delete(done);
          resolve();
        };
        const timer = setTimeout(done, delayMs);
        closeListeners.add(done);
      });

    for (const chunk of chunks) {
      if (chunk.delta && record.deltasSent > 0 && delayMs > 0) await pause();
      if (closed) return;
      res.write(`data: ${JSON.stringify(chunk.data)}\n\n`);
      if (chunk.delta) record.deltasSent++;
    }
    if (closed) return;
    res.end("data: [DONE]\n\n");
  };

  const server = createServer((req, res) => {
    active++;
    res.on("close", () => {
      active--;
      if (active === 0) notify(idleWaiters);
    });
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (req.method === "GET" && (path === "/v1/models" || path === "/models")) {
      sendJson(res, 200, { object: "list", data: [{ id: modelId, object: "model", created: 0, owned_by: "testkit" }] });
      return;
    }
    if (req.method === "POST" && path.endsWith("/chat/completions")) {
      const parts: Buffer[] = [];
      req.on("data", (part: Buffer) => parts.push(part));
      req.on("end", () => {
        handleCompletion(req, res, Buffer.concat(parts).toString("utf8")).catch((error: unknown) => {
          if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } });
          else res.destroy();
        });
      });
      return;
    }
    sendJson(res, 404, { error: { message: `no route for ${req.method} ${path}`, type: "not_found" } });
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
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
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

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}
