import { describe, expect, it } from "vitest";
import { parsePinCommand } from "./pin-command.ts";

describe("parsePinCommand", () => {
  it("parses status, ids, tools and globs; rejects anything else with the usage", () => {
    expect(parsePinCommand("")).toEqual({ kind: "status" });
    expect(parsePinCommand("pin 6c28c490")).toMatchObject({ kind: "pin", target: { ids: ["6c28c490"] } });
    expect(parsePinCommand("pin 6c28c490.2")).toMatchObject({ kind: "pin", target: { ids: ["6c28c490.2"] } });
    expect(parsePinCommand("unpin tool:memory")).toMatchObject({ kind: "unpin", target: { tools: ["memory"] } });
    expect(parsePinCommand(" pin  docs/**/*.md ")).toMatchObject({ kind: "pin", target: { paths: ["docs/**/*.md"] } });
    expect(parsePinCommand("pin")).toMatchObject({ kind: "error" });
    expect(parsePinCommand("pin a b")).toMatchObject({ kind: "error" });
    expect(parsePinCommand("forget x")).toMatchObject({ kind: "error" });
  });
});
