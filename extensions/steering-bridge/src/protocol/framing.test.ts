import { describe, expect, it } from "vitest";
import { LineFramer } from "./framing.ts";

describe("LineFramer", () => {
  it("splits frames across chunk boundaries and skips blank lines", () => {
    const framer = new LineFramer(100);
    expect(framer.push(Buffer.from('{"a":1}\n{"b"'))).toEqual([{ type: "frame", text: '{"a":1}' }]);
    expect(framer.push(Buffer.from(':2}\n\n\n{"c":3}\n'))).toEqual([
      { type: "frame", text: '{"b":2}' },
      { type: "frame", text: '{"c":3}' },
    ]);
  });

  it("reports an oversized frame once, as soon as it crosses the limit, and resumes after its newline", () => {
    const framer = new LineFramer(10);
    expect(framer.push(Buffer.from("0123456789ab"))).toEqual([{ type: "oversized", bytes: 12 }]);
    expect(framer.skipping).toBe(true);
    expect(framer.push(Buffer.from("more bytes"))).toEqual([]);
    expect(framer.push(Buffer.from("end\nok\n"))).toEqual([{ type: "frame", text: "ok" }]);
    expect(framer.skipping).toBe(false);
  });

  it("keeps multi-byte characters split across chunks intact", () => {
    const framer = new LineFramer(100);
    const bytes = Buffer.from("héllo\n");
    expect(framer.push(bytes.subarray(0, 2))).toEqual([]);
    expect(framer.push(bytes.subarray(2))).toEqual([{ type: "frame", text: "héllo" }]);
  });
});
