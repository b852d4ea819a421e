import { describe, expect, it } from "vitest";
import { MAX_BATCH_REQUESTS, parseFrame, serializeReply } from "./envelope.ts";

describe("parseFrame", () => {
  it("sorts parse errors, requests, invalid members and batches without throwing", () => {
    expect(parseFrame("{oops")).toMatchObject({ type: "error", response: { id: null, error: { code: -32700 } } });
    expect(parseFrame('{"jsonrpc":"2.0","id":3,"method":"m"}')).toMatchObject({
      type: "single",
      message: { request: { id: 3, method: "m" } },
    });
    expect(parseFrame('{"jsonrpc":"2.0","id":{"x":1},"method":"m"}')).toMatchObject({
      type: "single",
      message: { error: { id: null, error: { code: -32600 } } },
    });
    expect(parseFrame('{"jsonrpc":"1.0","id":"keep","method":"m"}')).toMatchObject({
      message: { error: { id: "keep", error: { code: -32600 } } },
    });
    expect(parseFrame('{"jsonrpc":"2.0","id":1,"method":"m","params":3}')).toMatchObject({
      message: { error: { id: 1 } },
    });
    expect(parseFrame("null")).toMatchObject({ message: { error: { id: null } } });
    expect(parseFrame("[]")).toMatchObject({ type: "error", response: { error: { code: -32600 } } });
    const big = JSON.stringify(Array.from({ length: MAX_BATCH_REQUESTS + 1 }, () => ({})));
    expect(parseFrame(big)).toMatchObject({ type: "error", response: { error: { message: /at most 100/ } } });
    const deep = `{"jsonrpc":"2.0","id":${"[".repeat(20_000)}${"]".repeat(20_000)},"method":"m"}`;
    expect(parseFrame(deep)).toMatchObject({ message: { error: { id: null } } });
  });
});

describe("serializeReply", () => {
  it("never throws and never passes the frame limit", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    expect(JSON.parse(serializeReply({ jsonrpc: "2.0", id: 1, result: cyclic }, 1))).toMatchObject({
      id: 1,
      error: { code: -32603 },
    });
    const huge = serializeReply({ jsonrpc: "2.0", id: 2, result: "x".repeat(2000) }, 2, 1000);
    expect(JSON.parse(huge)).toMatchObject({ id: 2, error: { code: -32003, data: { limit: 1000 } } });
    expect(serializeReply({ ok: 1 }, 3)).toBe('{"ok":1}\n');
  });
});
