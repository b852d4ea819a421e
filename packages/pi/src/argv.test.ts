import { describe, expect, it } from "vitest";
import { planUpdate, versionLine, wantsVersion } from "./argv.ts";

describe("wantsVersion", () => {
  it("answers --version and -v like pi, but not a package command's arguments", () => {
    expect(wantsVersion(["--version"])).toBe(true);
    expect(wantsVersion(["-p", "hi", "-v"])).toBe(true);
    expect(wantsVersion(["install", "npm:x", "-v"])).toBe(false);
    expect(wantsVersion(["-p", "hi"])).toBe(false);
  });

  it("names upstream first (what stock pi prints) and the patch", () => {
    expect(versionLine("0.73.1", "0.2.0")).toMatch(/^0\.73\.1 \(pi-rails 0\.2\.0/);
  });
});

describe("planUpdate", () => {
  it("splits bare `pi update` into the launcher's self-update and pi's extension update", () => {
    expect(planUpdate(["update"])).toEqual({ self: true, forward: ["update", "--extensions"], force: false });
    expect(planUpdate(["update", "--force"])).toEqual({
      self: true,
      forward: ["update", "--extensions", "--force"],
      force: true,
    });
  });

  it("keeps `--self`, `self` and `pi` for the launcher alone", () => {
    for (const argv of [
      ["update", "--self"],
      ["update", "self"],
      ["update", "pi"],
    ]) {
      expect(planUpdate(argv)).toEqual({ self: true, forward: undefined, force: false });
    }
  });

  it("leaves extension updates, help and anything pi would reject to pi", () => {
    expect(planUpdate(["update", "--extensions"])).toBeUndefined();
    expect(planUpdate(["update", "npm:@pi-rails/rulebook"])).toBeUndefined();
    expect(planUpdate(["update", "--extension", "npm:x"])).toBeUndefined();
    expect(planUpdate(["update", "--help"])).toBeUndefined();
    expect(planUpdate(["update", "--bogus"])).toBeUndefined();
    expect(planUpdate(["list"])).toBeUndefined();
  });
});
