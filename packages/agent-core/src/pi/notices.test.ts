import { describe, expect, it } from "vitest";
import { NoticeBoard } from "./notices.ts";

describe("NoticeBoard", () => {
  it("shows each notice once per session, in the UI when there is one", () => {
    const notified: string[] = [];
    const written: string[] = [];
    const board = new NoticeBoard("pi-ttsr", { write: (line) => written.push(line) });
    const ui = { hasUI: true, ui: { notify: (message: string, type?: string) => notified.push(`${type}|${message}`) } };
    expect(board.once(ui, "k", "rule x skipped")).toBe(true);
    expect(board.once(ui, "k", "rule x skipped")).toBe(false);
    expect(notified).toEqual(["warning|pi-ttsr: rule x skipped"]);
    const print = { hasUI: false, ui: { notify: () => notified.push("never") } };
    board.once(print, "other", "stock pi: stream hook unavailable");
    expect(written).toEqual(["warning: pi-ttsr: stock pi: stream hook unavailable"]);
    board.reset();
    expect(board.once(ui, "k", "again")).toBe(true);
  });

  it("remembers keys one by one for a grouped notice, and shows without memory", () => {
    const written: string[] = [];
    const board = new NoticeBoard("rulebook", { write: (line) => written.push(line) });
    expect(board.remember(["a", "b"])).toEqual(["a", "b"]);
    expect(board.remember(["b", "c", "c"])).toEqual(["c"]);
    board.show(undefined, "2 warnings", "info");
    board.show(undefined, "2 warnings", "info");
    expect(written).toEqual(["rulebook: 2 warnings", "rulebook: 2 warnings"]);
    expect(board.once(undefined, "a", "already remembered")).toBe(false);
  });
});
