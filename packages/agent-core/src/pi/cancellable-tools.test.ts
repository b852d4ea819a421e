import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtInToolOptions } from "./cancellable-tools.ts";

const settings = (values: Record<string, unknown>) => ({ getSettings: () => values }) as never;

describe("builtInToolOptions: pi's built-ins get the options pi itself builds them with", () => {
  it("bash: the command prefix, and the shell path as pi normalizes it (~ expanded, a file:// URL made a path)", () => {
    const home = process.env["HOME"] || homedir();
    expect(builtInToolOptions("bash", settings({ shellCommandPrefix: "set -e", shellPath: "~/bin/zsh" }))).toEqual({
      commandPrefix: "set -e",
      shellPath: join(home, "bin/zsh"),
    });
    expect(builtInToolOptions("bash", settings({ shellPath: "file:///usr/bin/bash" }))).toEqual({
      commandPrefix: undefined,
      shellPath: "/usr/bin/bash",
    });
    expect(builtInToolOptions("bash", settings({}))).toEqual({ commandPrefix: undefined, shellPath: undefined });
  });

  it("read: image resizing as set, on by default; the other tools take none", () => {
    expect(builtInToolOptions("read", settings({ images: { autoResize: false } }))).toEqual({
      autoResizeImages: false,
    });
    expect(builtInToolOptions("read", settings({}))).toEqual({ autoResizeImages: true });
    expect(builtInToolOptions("grep", settings({}))).toBeUndefined();
  });
});
