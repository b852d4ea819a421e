import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { modulesLoadedBy, runPi } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { CLOCK_OFFSET_ENV } from "../src/extension.ts";
import { RESTORE_TOOL } from "../src/restore/restore.ts";
import { disposeScenario, expiryScenario, PACKAGE_DIR, type Scenario } from "./cli-scenario.ts";
import { json } from "./helpers.ts";

const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as {
  pi: { extensions: string[] };
};

const scenario: Scenario = {};
afterEach(() => disposeScenario(scenario));

// pi loads the bundle as one module (pi 1.6's bundled CLI transforms it with jiti as one file; its SDK and unbundled
// CLI hand it to Node's own loader): no interop proxy in front of every call from one of its modules into another,
// which a 100k-message pass makes hundreds of thousands of.
describe("the pi entry (pi.extensions)", () => {
  it("is the bundle, and loading it reads no other module of pi-rails, no pi package and no TypeBox", () => {
    expect(manifest.pi.extensions).toEqual(["./dist/pi/extension.js"]);
    const entry = join(PACKAGE_DIR, manifest.pi.extensions[0]!);
    const { files, defaultExport } = modulesLoadedBy(entry);
    expect(defaultExport).toBe("function");
    expect(files).toContain(entry);
    // Besides itself, only npm packages (its dependencies zod and minimatch, and theirs): no workspace module.
    for (const file of files) {
      if (dirname(file) === join(PACKAGE_DIR, "dist", "pi")) continue;
      expect(file).toMatch(/[/\\]node_modules[/\\]/);
      expect(file).not.toMatch(/[/\\]node_modules[/\\](\.pnpm[/\\])?(@earendil-works|@pi-rails|typebox)/);
    }
  });

  it("context_restore in the real pi CLI: its plain JSON Schema goes to the model as TypeBox wrote it, and pi validates calls with it", async () => {
    await expiryScenario(scenario);
    const server = scenario.server!;
    const pruned = json(server.requests[2]!.messages);
    const id = /\[TRUNCATED FILE\] id=([0-9a-f]{8})/.exec(pruned)?.[1];
    expect(id).toBeDefined();
    const first = server.requests.length;
    // A call pi must refuse (no ids: pi 1.6 validates with pi-schema, which would wrap a single id into a list),
    // then the id the pruned view showed.
    server.setScript((_request, index) => {
      if (index === first)
        return { toolCalls: [{ id: "call_bad", name: RESTORE_TOOL, arguments: { inPlace: false } }] };
      if (index === first + 1)
        return { toolCalls: [{ id: "call_restore", name: RESTORE_TOOL, arguments: { ids: [id] } }] };
      return { text: "Restored." };
    });
    const run = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "show me big.txt again"], {
      home: scenario.home!,
      env: { [CLOCK_OFFSET_ENV]: "720" },
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const [refused, restored, answered] = server.requests.slice(first);
    // The tool definition: the same JSON as `Type.Object` made before the bundle (the cached prefix keeps its bytes).
    const tools = (refused!.body["tools"] as { function: { name: string; parameters: unknown } }[]).map(
      (t) => t.function,
    );
    expect(json(tools.find((t) => t.name === RESTORE_TOOL)?.parameters)).toBe(
      '{"type":"object","required":["ids"],"properties":{"ids":{"type":"array","items":{"type":"string"},' +
        '"description":"Block ids, e.g. [\\"ab12cd34\\"]"},"inPlace":{"type":"boolean",' +
        '"description":"Unprune in place instead of appending (default false)"}}}',
    );
    const resultOf = (request: typeof refused, callId: string) =>
      json(request!.messages.find((m) => m.role === "tool" && m["tool_call_id"] === callId));
    expect(resultOf(restored, "call_bad")).toContain("Validation failed");
    expect(resultOf(restored, "call_bad")).toContain("ids: missing");
    expect(resultOf(restored, "call_bad")).not.toContain("line 300: payload");
    expect(resultOf(answered, "call_restore")).toContain("line 300: payload");
  }, 240_000);
});
