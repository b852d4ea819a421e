import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prepareCliHome, resolvePiCli, startModelServer } from "@pi-rails/testkit";
import { describe, expect, it } from "vitest";

const fixture = join(import.meta.dirname, "fixtures", "abort-on-pattern.ts");
// The patched pi shows no wording of its own: the extension that aborted says why, with agent-core's helper.
const noticeHelper = join(import.meta.dirname, "..", "..", "agent-core", "src", "pi", "stream-abort-notice.ts");
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForPane(session: string, pattern: RegExp, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let screen = "";
  while (Date.now() < deadline) {
    screen = execFileSync("tmux", ["capture-pane", "-p", "-J", "-S", "-200", "-t", session], { encoding: "utf8" });
    if (pattern.test(screen)) return screen;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${pattern} in the pane:\n${screen}`);
}

// The interactive TUI in a real terminal (tmux): a hook-driven abort is a notice, not a failure.
describe.skipIf(!hasTmux)("interactive mode (tmux)", () => {
  it("shows the extension's one-line notice naming the rule, no failure, and only the retried answer", async () => {
    const server = await startModelServer({
      script: [
        { text: `Sure. FORBIDDEN_API(token) is the way. ${"More words here. ".repeat(30)}`, chunkSize: 4, delayMs: 5 },
        { text: "Use SAFE_API(token) instead.", chunkSize: 4, delayMs: 5 },
      ],
    });
    const home = prepareCliHome({ server });
    const session = `pi-rails-${process.pid}`;
    try {
      const notice = join(home.root, "notice.ts");
      writeFileSync(
        notice,
        `import { showStreamAbortNotice } from ${JSON.stringify(noticeHelper)};\n` +
          `export default (pi) => { pi.on("stream_abort", (event, ctx) => showStreamAbortNotice(ctx, event)); };\n`,
      );
      const launcher = join(home.root, "launch.sh");
      const exports = Object.entries({ ...home.env, TERM: "xterm-256color" })
        .filter(([key]) => /^[A-Z_][A-Z0-9_]*$/.test(key))
        .map(([key, value]) => `export ${key}='${String(value).replaceAll("'", "'\\''")}'`);
      writeFileSync(
        launcher,
        `#!/bin/sh\n${exports.join("\n")}\ncd '${home.cwd}'\nexec '${process.execPath}' '${resolvePiCli()}' -e '${fixture}' -e '${notice}'\n`,
      );
      chmodSync(launcher, 0o755);
      execFileSync("tmux", ["new-session", "-d", "-s", session, "-x", "140", "-y", "45", launcher]);
      await waitForPane(session, /loopback-model/, 20_000);
      execFileSync("tmux", ["send-keys", "-t", session, "-l", "how do I call the API?"]);
      execFileSync("tmux", ["send-keys", "-t", session, "Enter"]);
      const screen = await waitForPane(session, /Use SAFE_API\(token\) instead\./, 30_000);

      expect(screen).toMatch(/Response interrupted by rule fixture-rule; retrying/);
      expect(screen).not.toMatch(/Operation aborted|Request was aborted|Error:/);
      expect(screen).not.toContain("is the way");
      expect(server.requests).toHaveLength(2);
    } finally {
      spawnSync("tmux", ["kill-session", "-t", session]);
      await server.close();
      home.dispose();
    }
  }, 90_000);
});
