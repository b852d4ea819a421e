import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clearParseCache } from "../discovery/parse-cache.ts";
import { tempWorld, writeTree } from "../testing/tree.ts";
import { runCli } from "./main.ts";

let world: Awaited<ReturnType<typeof tempWorld>>;
beforeEach(async () => {
  world = await tempWorld();
  clearParseCache();
  await writeTree(world.cwd, {
    ".pi/rules/style.md": "---\nalwaysApply: true\n---\nTwo spaces.",
    ".cursor/rules/style.mdc": "---\nalwaysApply: true\n---\nCursor style.",
    ".cursor/rules/api.mdc": "---\ndescription: API\nglobs: src/api/**\n---\nJSON errors.",
    ".cursor/rules/quoted.mdc": '---\nalwaysApply: "true"\n---\nQuoted.',
    ".cursor/rules/empty.mdc": "",
    ".pi/settings.json": JSON.stringify({ rulebook: { nope: 1 } }),
  });
});
afterEach(() => world.dispose());

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    [...argv, "--cwd", world.cwd, "--home", world.home],
    { stdout: (t) => out.push(t), stderr: (t) => err.push(t) },
    {},
  );
  return { code, out: out.join("").replace(/\n$/, ""), err: err.join("").replace(/\n$/, "") };
}

describe("rulebook CLI", () => {
  it("list shows each rule with its bucket and provider", async () => {
    const { code, out } = await run("list");
    expect(code).toBe(0);
    const lines = out.split("\n").map((l) => l.split(/\s{2,}/).slice(0, 4));
    expect(lines).toEqual([
      ["NAME", "BUCKET", "PROVIDER", "SCOPE"],
      ["style", "alwaysApply", "native", "project"],
      ["api", "rulebook +attach", "cursor", "project"],
      ["quoted", "neither", "cursor", "project"],
    ]);
  });

  it("show prints the source, bucket, what it shadows and the content; unknown names list the rules", async () => {
    const { out } = await run("show", "style");
    expect(out).toContain("bucket:      always-apply (content in the system prompt)");
    expect(out).toMatch(/shadows: +.*\.cursor\/rules\/style\.mdc \(cursor\)/);
    expect(out.endsWith("\n\nTwo spaces.")).toBe(true);
    const missing = await run("show", "nope");
    expect(missing.code).toBe(1);
    expect(missing.err).toBe('rulebook: No rule named "nope". Rules: style, api, quoted');
  });

  it("doctor --json explains shadowed, skipped, undelivered rules and warnings", async () => {
    const { code, out } = await run("doctor", "--json");
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report.shadowed).toEqual([
      expect.objectContaining({
        name: "style",
        provider: "cursor",
        reason: "native (priority 100) outranks cursor (priority 50)",
      }),
    ]);
    expect(report.skipped).toEqual([expect.objectContaining({ reason: "empty file" })]);
    expect(report.notDelivered).toEqual([
      expect.objectContaining({ name: "quoted", reason: expect.stringMatching(/nothing says when to use it/) }),
    ]);
    const messages = report.warnings.map((w: { message: string }) => w.message);
    expect(messages).toEqual([
      expect.stringMatching(/rulebook\.nope: unknown key/),
      expect.stringMatching(/alwaysApply: ignored "true"/),
    ]);
  });

  it("doctor (text) and usage errors", async () => {
    const { out } = await run("doctor");
    expect(out).toContain("Shadowed (1):");
    expect(out).toContain("Skipped (1):");
    expect(out).toContain("Loaded but not delivered (1):");
    expect((await run("frobnicate")).code).toBe(2);
  });

  it.each(["~", "~/x"])(
    "reads user rules and settings from PI_CODING_AGENT_DIR=%s under --home, as pi does",
    async (value) => {
      const agentDir = value === "~" ? world.home : join(world.home, "x");
      await writeTree(agentDir, {
        "rules/mine.md": "---\nalwaysApply: true\n---\nMine.",
        "settings.json": JSON.stringify({ rulebook: { typo: 1 } }),
      });
      const out: string[] = [];
      const code = await runCli(
        ["doctor", "--json", "--cwd", world.cwd, "--home", world.home],
        { stdout: (t) => out.push(t), stderr: () => {} },
        { PI_CODING_AGENT_DIR: value },
      );
      expect(code).toBe(0);
      const text = out.join("");
      expect(text).toContain(join(agentDir, "rules", "mine.md"));
      expect(text).toContain(`${join(agentDir, "settings.json")}: rulebook.typo: unknown key`);
    },
  );
});
