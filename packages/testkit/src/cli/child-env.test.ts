import { describe, expect, it } from "vitest";
import { childEnv } from "./child-env.ts";
import { isJsonMode, splitJsonLines } from "./run-pi.ts";

describe("childEnv", () => {
  it("drops credentials and pi config, points HOME and the agent dir at the sandbox, stays offline", () => {
    const env = childEnv(
      "/sandbox/home",
      "/sandbox/home/.pi/agent",
      { EXTRA: "1", PATH: undefined },
      {
        PATH: "/bin",
        LANG: "C",
        OPENAI_API_KEY: "sk-real",
        ANTHROPIC_OAUTH_TOKEN: "t",
        AWS_PROFILE: "p",
        PI_CODING_AGENT_DIR: "/home/dev/.pi/agent",
        PI_CODING_AGENT: "true",
        AI_AGENT: "pi",
        HOME: "/home/dev",
      },
    );
    expect(env).toEqual({
      LANG: "C",
      HOME: "/sandbox/home",
      USERPROFILE: "/sandbox/home",
      PI_CODING_AGENT_DIR: "/sandbox/home/.pi/agent",
      PI_OFFLINE: "1",
      PI_SKIP_VERSION_CHECK: "1",
      PI_TELEMETRY: "0",
      NO_COLOR: "1",
      EXTRA: "1",
    });
  });
});

describe("JSON mode output", () => {
  it("detects --mode json and keeps non-JSON lines aside", () => {
    expect(isJsonMode(["-p", "x", "--mode", "json"])).toBe(true);
    expect(isJsonMode(["--mode=json"])).toBe(true);
    expect(isJsonMode(["-p", "json"])).toBe(false);
    expect(splitJsonLines('{"type":"agent_start"}\nnoise\n\n{"type":"agent_end"}\n')).toEqual({
      events: [{ type: "agent_start" }, { type: "agent_end" }],
      nonJsonLines: ["noise"],
    });
  });
});
