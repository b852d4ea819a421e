import { describe, expect, it } from "vitest";
import { findQueueSnapshot } from "./snapshot.ts";

const item = {
  id: "a",
  content: "x",
  kind: "message",
  channel: "bridge",
  mode: "finish_step",
  leftover: "carry",
  source: "t",
  enqueuedAt: 1,
};

describe("findQueueSnapshot", () => {
  it("takes the latest snapshot on the branch and drops malformed items", () => {
    const entries = [
      { type: "custom", customType: "steering-queue", data: { version: 1, items: [item] } },
      { type: "message" },
      {
        type: "custom",
        customType: "steering-queue",
        data: { version: 1, items: [{ ...item, id: "b" }, { nope: 1 }] },
      },
    ];
    expect(findQueueSnapshot(entries)?.items.map((i) => i.id)).toEqual(["b"]);
  });

  it("ignores unknown versions and sessions without snapshots", () => {
    expect(findQueueSnapshot([{ type: "custom", customType: "steering-queue", data: { version: 9 } }])).toBeUndefined();
    expect(findQueueSnapshot([])).toBeUndefined();
  });
});
