import { execFile, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempWorld, writeTree } from "../src/testing/tree.ts";

/** The real `rulebook` executable (bin/rulebook.mjs over dist/, built before tests). */
const BIN = fileURLToPath(new URL("../bin/rulebook.mjs", import.meta.url));
const run = promisify(execFile);

let world: Awaited<ReturnType<typeof tempWorld>>;
beforeEach(async () => {
  world = await tempWorld();
});
afterEach(() => world.dispose());

describe("the rulebook executable", () => {
  it("rulebook list | head -1 ends quietly on the closed pipe (no EPIPE stack)", async () => {
    const files: Record<string, string> = {};
    // enough output (well over a pipe buffer) that writing continues after head exits
    for (let i = 0; i < 3000; i++)
      files[`.pi/rules/rule-with-a-long-name-${i}.md`] = `---\nalwaysApply: true\n---\nR${i}.`;
    await writeTree(world.cwd, files);
    const result = spawnSync("sh", ["-c", `node "${BIN}" list --cwd "${world.cwd}" --home "${world.home}" | head -1`], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.stdout).toMatch(/^NAME\s+BUCKET\s+PROVIDER\s+SCOPE\s+PATH\n$/);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("list, show and doctor --json as the README shows them", async () => {
    await writeTree(world.cwd, {
      ".cursor/rules/api.mdc": "---\ndescription: HTTP API conventions\nglobs: src/api/**\n---\nReturn JSON errors.",
      ".cursor/rules/notes.txt": "not a rule",
      ".cursorrules": "Legacy rules.",
    });
    const args = ["--cwd", world.cwd, "--home", world.home];
    const list = await run(process.execPath, [BIN, "list", ...args]);
    expect(list.stdout.split("\n").map((l) => l.split(/\s{2,}/).slice(0, 3))).toEqual([
      ["NAME", "BUCKET", "PROVIDER"],
      ["api", "rulebook +attach", "cursor"],
      ["cursorrules", "alwaysApply", "cursor"],
      [""],
    ]);
    const show = await run(process.execPath, [BIN, "show", "api", ...args]);
    expect(show.stdout).toContain(
      "bucket:      rulebook (listed; read on demand); also auto-attached when a matching file is read or edited",
    );
    const doctor = JSON.parse((await run(process.execPath, [BIN, "doctor", "--json", ...args])).stdout);
    expect(doctor.providerSummary.find((p: { id: string }) => p.id === "cursor")).toEqual({
      id: "cursor",
      enabled: true,
      filesSeen: 3,
      loaded: 2,
      inEffect: 2,
      shadowed: 0,
      skipped: { count: 1, byKind: { "not-a-rule": 1 } },
      warnings: { count: 0, byKind: {} },
    });
    const text = (await run(process.execPath, [BIN, "doctor", ...args])).stdout;
    expect(text).toMatch(
      /cursor +priority 50 +3 file\(s\) seen, 2 loaded, 2 in effect, 0 shadowed, 1 skipped, 0 warning\(s\)/,
    );
    expect(text).toContain("not a rule file: Cursor reads only *.mdc and *.md in .cursor/rules");
  });
});
