import { describe, expect, it } from "vitest";
import type { StreamTextEvent } from "../index.ts";
import { composeStreamHooks } from "./compose.ts";

const event: StreamTextEvent = { source: "text", chunk: "ab", accumulated: "ab", contentIndex: 0, attempt: 0 };

describe("composeStreamHooks", () => {
  it("runs hooks in order and the first abort wins", () => {
    const calls: string[] = [];
    const hook = composeStreamHooks([
      () => {
        calls.push("a");
        return undefined;
      },
      () => {
        calls.push("b");
        return { abort: true, retry: { content: "from b" } };
      },
      () => {
        calls.push("c");
        return { abort: true, retry: { content: "from c" } };
      },
    ])!;
    expect(hook(event)).toEqual({ abort: true, retry: { content: "from b" } });
    expect(calls).toEqual(["a", "b"]);
  });

  it("is absent when there is nothing to compose, so the loop keeps its upstream path", () => {
    expect(composeStreamHooks([])).toBeUndefined();
  });
});
