import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const packageDir = join(import.meta.dirname, "..");
const scratch = mkdtempSync(join(tmpdir(), "agent-core-pack-"));
// A whole npm install: removing it can take a while on a loaded CI machine.
afterAll(() => rmSync(scratch, { recursive: true, force: true }), 120_000);

// The published tarball must carry the patched loop itself: a pnpm patch does not travel to npm.
describe("the packed @pi-rails/agent-core", () => {
  it("installs outside the workspace and runs a faux-provider agent that aborts and retries", () => {
    execFileSync("pnpm", ["pack", "--pack-destination", scratch], { cwd: packageDir, stdio: "pipe" });
    const tarball = readdirSync(scratch).find((name) => name.endsWith(".tgz"));
    expect(tarball).toBeDefined();
    const listing = execFileSync("tar", ["-tzf", join(scratch, tarball!)], { encoding: "utf8" });
    expect(listing).toContain("package/dist/core/agent-loop.js");
    expect(listing).toContain("package/dist/tools/call-registry.js");
    expect(listing).not.toMatch(/\.map$/m);
    expect(listing).not.toContain("package/src/");

    const project = join(scratch, "project");
    execFileSync("mkdir", ["-p", project]);
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "consumer",
        private: true,
        type: "module",
        // pi-ai is a peer of agent-core: the consumer installs it next to it, as the README says.
        dependencies: { "@pi-rails/agent-core": `file:${join(scratch, tarball!)}`, "@earendil-works/pi-ai": "1.6.0" },
      }),
    );
    execFileSync(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts", "--loglevel=error"],
      {
        cwd: project,
        stdio: "pipe",
        timeout: 240_000,
      },
    );
    writeFileSync(
      join(project, "run.mjs"),
      `import { Agent, LOOP_SEAMS, streamRetry } from "@pi-rails/agent-core";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { registerFauxProvider, streamSimple } from "@earendil-works/pi-ai/compat";
const faux = registerFauxProvider({ tokenSize: { min: 1, max: 1 } });
faux.setResponses([fauxAssistantMessage("I will use eval() here"), fauxAssistantMessage("No eval needed.")]);
const agent = new Agent({
  streamFn: streamSimple,
  initialState: { model: faux.getModel(), systemPrompt: "s" },
  hooks: { onStreamText: (e) => (e.accumulated.includes("eval(") ? { abort: true, retry: streamRetry("never eval") } : undefined) },
});
const aborts = [];
agent.subscribe((e) => { if (e.type === "stream_abort") aborts.push(e.consecutive); });
await agent.prompt("go");
const cancel = await agent.cancelToolCall("no-such-call");
console.log(JSON.stringify({ aborts, seams: LOOP_SEAMS.length, roles: agent.state.messages.map((m) => m.role),
  final: agent.state.messages.at(-1).content[0].text, cancel: cancel.status }));
`,
    );
    const output = execFileSync(process.execPath, ["run.mjs"], { cwd: project, encoding: "utf8" });
    expect(JSON.parse(output.trim())).toEqual({
      aborts: [1],
      seams: 7,
      roles: ["system", "user", "user", "assistant"],
      final: "No eval needed.",
      cancel: "not_found",
    });
  }, 300_000);
});
