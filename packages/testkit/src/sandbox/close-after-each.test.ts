import { describe, expect, it } from "vitest";
import { closeAfterEach } from "./close-after-each.ts";

describe("closeAfterEach", () => {
  it("closes what a test kept, last opened first, and every one even when one fails", async () => {
    let hook: (() => Promise<void>) | undefined;
    const keep = closeAfterEach((registered) => {
      hook = registered;
    });
    const closed: string[] = [];
    keep({ close: async () => void closed.push("server") });
    keep({
      dispose: () => {
        closed.push("home");
        throw new Error("home would not go");
      },
    });
    keep({ dispose: () => void closed.push("session") });
    await expect(hook!()).rejects.toThrow("home would not go");
    expect(closed).toEqual(["session", "home", "server"]);
    // The next test starts with nothing kept.
    await hook!();
    expect(closed).toHaveLength(3);
  });
});
