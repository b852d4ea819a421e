import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type FieldSchema, formatSettingsIssue, loadSettings, piSettingsFiles } from "./settings.ts";

// Field schemas with zod's safeParse shape (agent-core has no zod; the extensions' suites run the same loader on
// their real zod schemas).
const fail = (message: string, path: PropertyKey[] = []) =>
  ({ success: false, error: { issues: [{ message, path }] } }) as const;
const bool: FieldSchema = {
  safeParse: (v) => (typeof v === "boolean" ? { success: true, data: v } : fail("expected boolean")),
};
const names: FieldSchema = {
  safeParse: (v) => {
    if (!Array.isArray(v)) return fail("expected array");
    const bad = v.findIndex((x) => typeof x !== "string");
    return bad >= 0 ? fail("expected string", [bad]) : { success: true, data: v };
  },
};

function project(user: unknown, proj: unknown) {
  const root = mkdtempSync(join(tmpdir(), "kit-settings-"));
  const agentDir = join(root, "agent");
  const cwd = join(root, "p");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(join(cwd, ".pi"), { recursive: true });
  const [userFile, projectFile] = piSettingsFiles(cwd, agentDir) as [string, string];
  if (user !== undefined) writeFileSync(userFile, typeof user === "string" ? user : JSON.stringify(user));
  if (proj !== undefined) writeFileSync(projectFile, typeof proj === "string" ? proj : JSON.stringify(proj));
  return { files: piSettingsFiles(cwd, agentDir), userFile, projectFile };
}

const spec = (loaded: { count: number }) => ({
  section: "demo",
  defaults: { on: true, names: [] as string[] },
  fields: () => {
    loaded.count++;
    return { on: bool, names };
  },
});

describe("loadSettings", () => {
  it("project keys override user keys; a bad key is said once and ignored, the rest is kept", async () => {
    const where = project({ demo: { on: false, names: ["a"] } }, { demo: { on: "yes", typo: 1, names: ["b"] } });
    const loaded = await loadSettings(spec({ count: 0 }), where.files);
    expect(loaded.settings).toEqual({ on: false, names: ["b"] });
    expect(loaded.from).toEqual({ on: where.userFile, names: where.projectFile });
    expect(loaded.issues.map(formatSettingsIssue)).toEqual([
      `${where.projectFile}: demo.on: expected boolean (got "yes"); ignored`,
      `${where.projectFile}: demo.typo: unknown key (known: on, names); ignored`,
    ]);
  });

  it("a bad list entry is said and dropped, the other entries kept", async () => {
    const where = project(undefined, { demo: { names: ["a", 3, "b"] } });
    const loaded = await loadSettings(spec({ count: 0 }), where.files);
    expect(loaded.settings.names).toEqual(["a", "b"]);
    expect(loaded.issues).toEqual([
      { file: where.projectFile, key: "demo.names[1]", message: "expected string (got 3); ignored" },
    ]);
  });

  it("treats settings as data: member-like keys are unknown keys", async () => {
    const where = project(undefined, '{"demo":{"constructor":1,"__proto__":{"on":false}}}');
    const loaded = await loadSettings(spec({ count: 0 }), where.files);
    expect(loaded.settings.on).toBe(true);
    expect(loaded.issues.map((i) => i.key)).toEqual(["demo.constructor", "demo.__proto__"]);
  });

  it("says a broken file or a non-object section once and keeps the other file", async () => {
    const where = project("{ nope", { demo: 5 });
    const loaded = await loadSettings(spec({ count: 0 }), where.files);
    expect(loaded.settings).toEqual({ on: true, names: [] });
    expect(loaded.issues).toEqual([
      expect.objectContaining({
        file: where.userFile,
        key: "demo",
        message: expect.stringMatching(/not valid JSON/),
        wholeFile: true,
      }),
      { file: where.projectFile, key: "demo", message: "must be an object, got 5; ignored" },
    ]);
  });

  it("reads a file that starts with a byte-order mark, as pi does", async () => {
    const where = project(`\uFEFF${JSON.stringify({ demo: { on: false } })}`, undefined);
    const loaded = await loadSettings(spec({ count: 0 }), where.files);
    expect(loaded).toMatchObject({ settings: { on: false }, issues: [] });
  });

  it("loads the schema only when a file has the section", async () => {
    const counter = { count: 0 };
    const where = project({ other: 1 }, undefined);
    const loaded = await loadSettings(spec(counter), where.files);
    expect(loaded).toMatchObject({ settings: { on: true, names: [] }, issues: [] });
    expect(loaded.documents).toEqual([{ file: where.userFile, json: { other: 1 } }]);
    expect(counter.count).toBe(0);
  });
});
