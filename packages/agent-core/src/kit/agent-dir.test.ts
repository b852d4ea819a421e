import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expandTilde, resolveAgentDir } from "./agent-dir.ts";

describe("resolveAgentDir", () => {
  const home = "/home/dev";
  it("expands ~ and ~/ like pi's expandTildePath, and nothing else", () => {
    expect(resolveAgentDir({ HOME: home, PI_CODING_AGENT_DIR: "~" })).toBe(home);
    expect(resolveAgentDir({ HOME: home, PI_CODING_AGENT_DIR: "~/x" })).toBe(`${home}/x`);
    expect(resolveAgentDir({ HOME: home, PI_CODING_AGENT_DIR: "~x" })).toBe("~x");
    expect(resolveAgentDir({ HOME: home, PI_CODING_AGENT_DIR: "/abs/agent" })).toBe("/abs/agent");
    expect(expandTilde("a/~/b", home)).toBe("a/~/b");
  });

  it("falls back to <home>/.pi/agent when the variable is unset or empty", () => {
    expect(resolveAgentDir({ HOME: home })).toBe(join(home, ".pi", "agent"));
    expect(resolveAgentDir({ HOME: home, PI_CODING_AGENT_DIR: "" })).toBe(join(home, ".pi", "agent"));
  });
});
