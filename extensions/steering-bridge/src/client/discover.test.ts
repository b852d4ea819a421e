import { describe, expect, it } from "vitest";
import type { SessionInfo } from "../endpoint/session-registry.ts";
import { nearestSessions } from "./discover.ts";

const session = (sessionId: string, cwd: string): SessionInfo => ({
  sessionId,
  cwd,
  pid: 1,
  socket: `/s/${sessionId}.sock`,
  startedAt: "",
});

describe("nearestSessions", () => {
  it("picks the session of the nearest enclosing dir, never a sibling with a common prefix", () => {
    const all = [session("root", "/p"), session("app", "/p/app"), session("apple", "/p/apple")];
    expect(nearestSessions(all, "/p/app/src").map((s) => s.sessionId)).toEqual(["app"]);
    expect(nearestSessions(all, "/p/applesauce").map((s) => s.sessionId)).toEqual(["root"]);
    expect(nearestSessions(all, "/q")).toEqual([]);
    expect(nearestSessions([...all, session("app2", "/p/app")], "/p/app").map((s) => s.sessionId)).toEqual([
      "app",
      "app2",
    ]);
  });
});
