import { latestSessionEntry } from "@pi-rails/agent-core/kit";
import { describe, expect, it } from "vitest";
import { QUEUE_SNAPSHOT_ENTRY } from "./session-entries.ts";

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

describe("QUEUE_SNAPSHOT_ENTRY", () => {
  it("the latest snapshot on the branch wins, in either spelling; malformed items are dropped", () => {
    const entries = [
      { type: "custom", customType: "steering-queue", data: { version: 1, items: [item] } },
      { type: "message" },
      {
        type: "custom",
        customType: "steering:queue",
        data: { version: 1, items: [{ ...item, id: "b" }, { nope: 1 }] },
      },
    ];
    expect(latestSessionEntry(entries, QUEUE_SNAPSHOT_ENTRY)?.items.map((i) => i.id)).toEqual(["b"]);
  });

  it("ignores unknown versions and sessions without snapshots", () => {
    const unknown = [{ type: "custom", customType: "steering-queue", data: { version: 9 } }];
    expect(latestSessionEntry(unknown, QUEUE_SNAPSHOT_ENTRY)).toBeUndefined();
    expect(latestSessionEntry([], QUEUE_SNAPSHOT_ENTRY)).toBeUndefined();
  });

  it("a session whose newest snapshot has the former spelling (`steering-queue`) reads that one", () => {
    const entries = [
      { type: "custom", customType: "steering:queue", data: { version: 1, items: [] } },
      { type: "custom", customType: "steering-queue", data: { version: 1, items: [item] } },
    ];
    expect(latestSessionEntry(entries, QUEUE_SNAPSHOT_ENTRY)?.items.map((i) => i.id)).toEqual(["a"]);
  });
});
