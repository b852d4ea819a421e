import { afterEach, describe, expect, it } from "vitest";
import { PI_PATCH_SYMBOL } from "../patch/detect.ts";
import { chooseHost, type PiHosts, piHostKind } from "./host.ts";
import { SessionNotices } from "./host-notices.ts";

const shared = globalThis as Record<symbol, unknown>;
const before = shared[PI_PATCH_SYMBOL];
afterEach(() => {
  shared[PI_PATCH_SYMBOL] = before;
});

/** Both hosts of one interface, built from the same input: the shape pi-ttsr and steering-bridge declare. */
const hosts: PiHosts<{ name: string }, { kind: string; name: string }> = {
  needs: ["checkpoint", "loop_checkpoint"],
  patched: ({ name }) => ({ kind: "seams", name }),
  stock: ({ name }) => ({ kind: "pi queue", name }),
};

describe("chooseHost", () => {
  it("takes the patched host only when the running pi announces every feature it needs", () => {
    shared[PI_PATCH_SYMBOL] = { version: 1, features: ["stream_text", "checkpoint", "loop_checkpoint"] };
    expect(chooseHost(hosts, { name: "s1" })).toEqual({ kind: "patched", host: { kind: "seams", name: "s1" } });
    shared[PI_PATCH_SYMBOL] = { version: 1, features: ["checkpoint"] };
    expect(chooseHost(hosts, { name: "s2" })).toEqual({ kind: "stock", host: { kind: "pi queue", name: "s2" } });
    shared[PI_PATCH_SYMBOL] = undefined;
    expect(piHostKind(["stream_text"])).toBe("stock");
    expect(piHostKind([])).toBe("stock");
  });
});

describe("SessionNotices", () => {
  const session = (id: string, lines: string[]) => ({
    hasUI: false,
    ui: { notify: () => lines.push("never") },
    sessionManager: { getSessionId: () => id },
  });

  it("says a notice once per session; a reload (a new board, same process memory) repeats nothing", () => {
    const lines: string[] = [];
    const shown = new Set<string>();
    const write = (line: string) => lines.push(line);
    const board = new SessionNotices("steering-bridge", { write, shown });
    expect(board.once(session("a", lines), "stock-pi", "no seams")).toBe(true);
    expect(board.once(session("a", lines), "stock-pi", "no seams")).toBe(false);
    const reloaded = new SessionNotices("steering-bridge", { write, shown });
    expect(reloaded.once(session("a", lines), "stock-pi", "no seams")).toBe(false);
    expect(reloaded.once(session("b", lines), "stock-pi", "no seams", "info")).toBe(true);
    expect(lines).toEqual(["warning: steering-bridge: no seams", "steering-bridge: no seams"]);
  });

  it("remember marks each key of a grouped notice in its session and returns the fresh ones; show has no memory", () => {
    const lines: string[] = [];
    const board = new SessionNotices("rulebook", { write: (line) => lines.push(line), shown: new Set() });
    expect(board.remember(session("a", lines), ["x", "y"])).toEqual(["x", "y"]);
    expect(board.remember(session("a", lines), ["y", "z"])).toEqual(["z"]);
    expect(board.remember(session("b", lines), ["y"])).toEqual(["y"]);
    expect(board.once(session("a", lines), "x", "again")).toBe(false);
    board.show(session("a", lines), "x and z", "info");
    board.show(session("a", lines), "x and z", "info");
    expect(lines).toEqual(["rulebook: x and z", "rulebook: x and z"]);
  });

  it("keeps its process memory on globalThis by default", () => {
    const lines: string[] = [];
    const write = (line: string) => lines.push(line);
    const key = `k-${Math.random()}`;
    expect(new SessionNotices("kit-test", { write }).once(session("a", lines), key, "m")).toBe(true);
    expect(new SessionNotices("kit-test", { write }).once(session("a", lines), key, "m")).toBe(false);
    expect(lines).toHaveLength(1);
  });
});
