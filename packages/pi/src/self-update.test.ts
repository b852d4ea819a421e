import { describe, expect, it, vi } from "vitest";
import { globalNpmPrefix, isNewer, runSelfUpdate, selfUpdateCommand } from "./self-update.ts";

describe("self-update", () => {
  it("updates a global npm install in its own prefix, by this package's name (never stock pi)", () => {
    expect(globalNpmPrefix("/home/u/.npm-global/lib/node_modules/@pi-rails/pi")).toBe("/home/u/.npm-global");
    expect(selfUpdateCommand("/usr/local/lib/node_modules/@pi-rails/pi")).toEqual({
      command: "npm",
      args: ["install", "--global", "--prefix", "/usr/local", "@pi-rails/pi@latest"],
    });
  });

  it("declines a project install or a checkout", () => {
    expect(selfUpdateCommand("/work/app/node_modules/@pi-rails/pi")).toBeUndefined();
    expect(selfUpdateCommand("/work/pi-rails/packages/pi")).toBeUndefined();
  });

  it("compares versions numerically", () => {
    expect(isNewer("0.10.0", "0.9.3")).toBe(true);
    expect(isNewer("0.1.0", "0.1.0")).toBe(false);
    expect(isNewer("0.1.0", "0.2.0")).toBe(false);
  });

  it("refuses to update a checkout or a project install, saying how (exit code 1, nothing run)", async () => {
    const errors: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((text: string) => void errors.push(text));
    try {
      expect(await runSelfUpdate("/work/pi-rails/packages/pi", "0.1.0", false)).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect(errors.join("\n")).toContain("cannot update this installation of @pi-rails/pi (/work/pi-rails/packages/pi)");
    expect(errors.join("\n")).toContain("npm install -g @pi-rails/pi");
  });
});
