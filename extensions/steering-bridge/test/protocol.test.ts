import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SteeringBridge } from "../src/bridge/steering-bridge.ts";
import { COMMANDS, USAGE } from "../src/cli/main.ts";
import { SteeringClient, SteeringRpcError } from "../src/client/client.ts";
import { type Endpoint, startEndpoint } from "../src/endpoint/server.ts";
import { ERROR_CODES, METHODS, type Method, NOTIFICATIONS } from "../src/protocol/protocol.ts";
import { PACKAGE_DIR } from "./steer-cli.ts";

const dirs: string[] = [];
const endpoints: Endpoint[] = [];
const clients: SteeringClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(endpoints.splice(0).map((e) => e.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function serve(): Promise<SteeringClient> {
  const agentDir = realpathSync(mkdtempSync(join(tmpdir(), "steer-proto-")));
  dirs.push(agentDir);
  const endpoint = await startEndpoint({ bridge: new SteeringBridge({ sessionId: "proto", cwd: agentDir }), agentDir });
  endpoints.push(endpoint);
  const client = await SteeringClient.connect(endpoint.socketPath);
  clients.push(client);
  return client;
}

/** One raw request line on its own connection; the parsed answer. */
function rawRequest(
  socket: string,
  request: unknown,
): Promise<{ id: unknown; error?: { code: number; message: string } }> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let buffer = "";
    s.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      if (!buffer.includes("\n")) return;
      s.destroy();
      resolve(JSON.parse(buffer.slice(0, buffer.indexOf("\n"))));
    });
    s.on("error", reject);
    s.write(`${JSON.stringify(request)}\n`);
  });
}

type ParamsOf<M> = M extends Method<infer P> ? P : never;
/** Valid params for each method, and what a bare bridge (no pi, no cancel backend) answers. */
const CALLS: { [K in keyof typeof METHODS]: { params: ParamsOf<(typeof METHODS)[K]>; answer: "result" | number } } = {
  inject: { params: { content: "a message", mode: "finish_step" }, answer: "result" },
  remind: { params: { content: "a reminder", mode: "interrupt_immediate" }, answer: "result" },
  postEvent: { params: { content: "a note" }, answer: "result" },
  cancelToolCall: { params: { callId: "call_1" }, answer: ERROR_CODES.unavailable },
  pending: { params: { limit: 1 }, answer: "result" },
  revoke: { params: { id: "st_unknown" }, answer: "result" },
  status: { params: {}, answer: "result" },
  subscribe: { params: { checkpoints: false, acks: false }, answer: "result" },
};

describe("one descriptor per method, shared by the server, the client and pi-steer", () => {
  it("the server serves every descriptor, each checking its params with the descriptor's schema", async () => {
    const client = await serve();
    const socket = endpoints[0]!.socketPath;
    for (const [key, method] of Object.entries(METHODS) as [keyof typeof METHODS, Method][]) {
      // The client sends the descriptor's name; the server answers what the method does.
      const call = CALLS[key];
      const answer = await client.request(method, call.params as never).then(
        () => "result",
        (error: unknown) => (error instanceof SteeringRpcError ? error.code : String(error)),
      );
      expect(answer, method.name).toBe(call.answer);
      // An unknown key is refused by that method's own check (not "method not found").
      const refused = await rawRequest(socket, { jsonrpc: "2.0", id: 1, method: method.name, params: { bogus: 1 } });
      expect(refused.error, method.name).toMatchObject({ code: -32602, message: /unknown key\(s\): bogus/ });
    }
  });

  it("an unknown method is refused with -32601, naming it and every method the socket has", async () => {
    const client = await serve();
    const socket = endpoints[0]!.socketPath;
    const answer = await rawRequest(socket, { jsonrpc: "2.0", id: "x", method: "steer/nope", params: {} });
    expect(answer).toMatchObject({ id: "x", error: { code: ERROR_CODES.methodNotFound } });
    expect(answer.error!.message).toContain('"steer/nope"');
    for (const method of Object.values(METHODS)) expect(answer.error!.message).toContain(method.name);
    // A notification of an unknown method gets no answer: the next line answers the next request.
    const s = connect(socket);
    const line = new Promise<string>((resolve) => s.once("data", (chunk) => resolve(chunk.toString("utf8"))));
    s.write(`${JSON.stringify({ jsonrpc: "2.0", method: "steer/nope" })}\n`);
    s.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: METHODS.status.name })}\n`);
    expect(JSON.parse(await line)).toMatchObject({ id: 2, result: { sessionId: "proto" } });
    s.destroy();
    expect((await client.status()).sessionId).toBe("proto");
  });

  it("pi-steer has one command per method, each calling its descriptor, all in the help", () => {
    const used = Object.values(COMMANDS).map((command) => command.method);
    expect(new Set(used)).toEqual(new Set(Object.values(METHODS)));
    expect(used).toHaveLength(Object.keys(METHODS).length);
    for (const command of Object.values(COMMANDS)) expect(USAGE).toContain(command.usage[0]);
  });

  it("the README's typed client example runs as shown", async () => {
    const readme = readFileSync(join(PACKAGE_DIR, "README.md"), "utf8");
    const example = /Typed client[^\n]*\n(?:[^\n]+\n)*\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain("request(Inject");
    const agentDir = realpathSync(mkdtempSync(join(tmpdir(), "steer-readme-")));
    dirs.push(agentDir);
    const bridge = new SteeringBridge({ sessionId: "readme", cwd: process.cwd() });
    endpoints.push(await startEndpoint({ bridge, agentDir }));
    // The example as a module: the package import points at this checkout's source; the client is kept to close it.
    const module = join(agentDir, "example.ts");
    const source = example!.replace(
      '"@pi-rails/steering-bridge"',
      JSON.stringify(join(PACKAGE_DIR, "src", "index.ts")),
    );
    writeFileSync(module, `${source}\nexport { client };\n`);
    const previous = process.env["PI_CODING_AGENT_DIR"];
    process.env["PI_CODING_AGENT_DIR"] = agentDir;
    try {
      const { client } = (await import(module)) as { client: SteeringClient };
      clients.push(client);
    } finally {
      if (previous === undefined) delete process.env["PI_CODING_AGENT_DIR"];
      else process.env["PI_CODING_AGENT_DIR"] = previous;
    }
    expect(bridge.queue.pending()).toMatchObject([{ content: "use the staging db", mode: "finish_step" }]);
  });

  it("docs/protocol.md documents every method, notification and error code", () => {
    const doc = readFileSync(join(PACKAGE_DIR, "docs", "protocol.md"), "utf8");
    for (const method of Object.values(METHODS)) expect(doc).toContain(`\`${method.name}\``);
    for (const notification of Object.values(NOTIFICATIONS)) expect(doc).toContain(`\`${notification.name}\``);
    for (const code of Object.values(ERROR_CODES)) expect(doc).toContain(`\`${code}\``);
  });

  it("src/protocol/ is a leaf: it imports nothing from the endpoint, the client or the CLI", () => {
    const dir = join(PACKAGE_DIR, "src", "protocol");
    let seen = 0;
    for (const file of readdirSync(dir).filter((name) => !name.endsWith(".test.ts"))) {
      const imports = [...readFileSync(join(dir, file), "utf8").matchAll(/^import (type )?.*? from "([^"]+)";$/gms)];
      seen += imports.length;
      for (const [, typeOnly, from] of imports) {
        expect(from, file).not.toMatch(/^\.\.\/(endpoint|client|cli)\//);
        // Run-time imports stay inside the folder (or are packages): a client loads no server code.
        if (!typeOnly) expect(from, file).toMatch(/^(\.\/|node:|zod$|@pi-rails\/agent-core\/kit$)/);
      }
    }
    expect(seen).toBeGreaterThan(3);
  });
});
