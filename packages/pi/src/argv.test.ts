import { describe, expect, it } from "vitest";
import { minimumNode, nodeTooOld, versionLine } from "./argv.ts";

describe("versionLine", () => {
  it("names upstream first (what stock pi prints), then the patch", () => {
    expect(versionLine("1.6.0", "0.2.0", true)).toBe(
      "1.6.0 (pi-rails 0.2.0: @pi-rails/pi, patched @earendil-works/pi-coding-agent)",
    );
  });

  it("says so when the build had no patch to apply", () => {
    expect(versionLine("1.6.0", "0.2.0", false)).toMatch(/^1\.6\.0 \(pi-rails 0\.2\.0: @pi-rails\/pi, UNPATCHED /);
  });
});

describe("nodeTooOld", () => {
  it("accepts the required version and newer ones", () => {
    for (const version of ["22.19.0", "22.23.3", "v22.19.1", "23.0.0", "24.11.1"]) {
      expect(nodeTooOld(version, ">=22.19")).toBeUndefined();
    }
  });

  it("names the required version and the running one, in one line", () => {
    const line = nodeTooOld("20.20.2", ">=22.19");
    expect(line).toBe("pi-rails: @pi-rails/pi needs Node.js >=22.19 (pi 1.6 does); this is Node.js 20.20.2.");
    expect(nodeTooOld("22.18.9", ">=22.19.0")).toContain("this is Node.js 22.18.9");
    expect(nodeTooOld("18.0.0", ">= 22.19")).toContain(">=22.19");
  });

  it("refuses a range it cannot read instead of guessing", () => {
    expect(() => minimumNode("^22")).toThrow(/unsupported engines range/);
    expect(minimumNode(">=22.19.0")).toEqual([22, 19, 0]);
  });
});
