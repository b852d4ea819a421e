import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempWorld, writeTree } from "../src/testing/tree.ts";

/**
 * What discovery tells a recording (the kit's read-set, which pi-ttsr's start-up snapshot keeps): the paths it read,
 * and a read error that may pass. Fresh processes on the built package, one with its file descriptors used up.
 */
describe("discovery reports what it read to a recording", () => {
  let world: Awaited<ReturnType<typeof tempWorld>>;
  beforeEach(async () => {
    world = await tempWorld();
    await writeTree(world.cwd, {
      ".pi/rules/a.md": '---\ncondition: "foo"\n---\nNo foo.',
      ".cursor/rules/b.mdc": "---\nalwaysApply: true\n---\nB.",
    });
  });
  afterEach(() => world.dispose());

  /** Loads the rules under `recordReads`; `hog`: first open files until the process may open no more. */
  const session = (hog: boolean) => {
    const entry = fileURLToPath(new URL("../dist/discovery/index.js", import.meta.url));
    const options = { cwd: world.cwd, home: world.home, agentDir: world.agentDir, parseStore: false };
    const script = `
      import { closeSync, openSync } from "node:fs";
      import { recordReads } from "@pi-rails/agent-core/kit";
      const { loadRules } = await import(${JSON.stringify(entry)});
      const held = [];
      if (${hog}) try { for (;;) held.push(openSync("/dev/null", "r")); } catch {}
      const recorded = await recordReads(() => loadRules(${JSON.stringify(options)}));
      for (const fd of held) closeSync(fd);
      console.log(JSON.stringify({
        rules: recorded.value.rules.length,
        unsettled: recorded.unsettled ?? null,
        paths: recorded.paths,
      }));`;
    // a low limit, so that using it up is quick
    const out = execFileSync(
      "bash",
      ["-c", 'ulimit -n 256 && exec "$0" --input-type=module -e "$1"', process.execPath, script],
      {
        encoding: "utf8",
        cwd: fileURLToPath(new URL("..", import.meta.url)),
      },
    );
    return JSON.parse(out) as { rules: number; unsettled: string | null; paths: string[] };
  };

  it("the rule files and folders it read, and no error when all went well", () => {
    const read = session(false);
    expect(read.rules).toBe(2);
    expect(read.unsettled).toBeNull();
    expect(read.paths).toEqual(
      expect.arrayContaining([
        `${world.cwd}/.pi/rules`,
        `${world.cwd}/.pi/rules/a.md`,
        `${world.cwd}/.cursor/rules/b.mdc`,
        `${world.agentDir}/settings.json`,
      ]),
    );
  });

  it("too many open files (EMFILE) is reported: what was read despite it must not be kept", () => {
    const read = session(true);
    expect(read.rules).toBeLessThan(2);
    expect(read.unsettled).toBe("EMFILE");
  });
});

describe("loading discovery costs nothing until it lists a folder", () => {
  it("makes no collator when imported (ICU's collation data is about 9 ms), one when it sorts", () => {
    const entry = fileURLToPath(new URL("../dist/discovery/index.js", import.meta.url));
    const fs = fileURLToPath(new URL("../dist/discovery/fs.js", import.meta.url));
    const script = `
      let made = 0;
      const Collator = Intl.Collator;
      Intl.Collator = function (...args) { made++; return new Collator(...args); };
      await import(${JSON.stringify(entry)});
      const { compareNames } = await import(${JSON.stringify(fs)});
      const atImport = made;
      const sorted = ["10-b.md", "2-a.md", "B.md", "a.md"].sort(compareNames);
      console.log(JSON.stringify({ atImport, afterSort: made, sorted }));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      cwd: fileURLToPath(new URL("..", import.meta.url)),
    });
    expect(JSON.parse(out)).toEqual({ atImport: 0, afterSort: 1, sorted: ["2-a.md", "10-b.md", "a.md", "B.md"] });
  });
});
