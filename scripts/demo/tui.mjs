// The interactive TUI of a pi (checkout or installed) in a real terminal (tmux): the user types a question, the
// model starts to break a pi-ttsr rule, and the screen shows the patched one-line notice and only the retried
// answer. Used by `pnpm demo --installed` to show that the TUI works as in stock pi, with the patch, and by
// packages/pi-integration/test/tui-interrupt.e2e.test.ts on both hosts (what shows while it streams, frame by frame).
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMPLIANT, RULES, VIOLATING } from "./ttsr.mjs";

export const hasTmux = () => spawnSync("tmux", ["-V"]).status === 0;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function pane(session) {
  return execFileSync("tmux", ["capture-pane", "-p", "-J", "-S", "-200", "-t", session], { encoding: "utf8" });
}

/** Polls the screen until it matches `pattern`; `onFrame` sees each screen read on the way (every `everyMs`). */
async function waitForPane(session, pattern, timeoutMs, { everyMs = 200, onFrame = () => {} } = {}) {
  const deadline = Date.now() + timeoutMs;
  let screen = "";
  while (Date.now() < deadline) {
    screen = pane(session);
    onFrame(screen);
    if (pattern.test(screen)) return screen;
    await sleep(everyMs);
  }
  throw new Error(`timed out waiting for ${pattern} in the TUI:\n${screen}`);
}

/** The start of the violating answer: a screen showing it shows the cut-off partial. */
const PARTIAL_MARK = VIOLATING.slice(0, 40);

/** Runs the TUI once; returns the final screen and what it showed. */
export async function runTuiCheck({ root, target }) {
  const { prepareCliHome, startModelServer } = await import(join(root, "packages/testkit/dist/index.js"));
  const server = await startModelServer({
    script: (request) =>
      JSON.stringify(request.messages).includes("rule_violation")
        ? { text: COMPLIANT, chunkSize: 4, delayMs: 1 }
        : { text: VIOLATING, chunkSize: 4, delayMs: 4 },
  });
  const home = target.prepareHome(prepareCliHome, { server, files: RULES });
  const session = `pi-rails-demo-${process.pid}`;
  try {
    const env = { ...home.env, ...target.env, TERM: "xterm-256color" };
    const exports = Object.entries(env)
      .filter(([key, value]) => value !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
      .map(([key, value]) => `export ${key}='${String(value).replaceAll("'", "'\\''")}'`);
    const launcher = join(home.root, "launch.sh");
    const args = target.args(["pi-ttsr", "rulebook"]).map((arg) => `'${arg}'`);
    writeFileSync(
      launcher,
      `#!/bin/sh\n${exports.join("\n")}\ncd '${home.cwd}'\nexec '${process.execPath}' '${target.piCli}' ${args.join(" ")}\n`,
    );
    chmodSync(launcher, 0o755);
    execFileSync("tmux", ["new-session", "-d", "-s", session, "-x", "140", "-y", "45", launcher]);
    await waitForPane(session, /loopback-model/, 30_000);
    // Type until the editor shows the text (keys sent while pi is still starting up are lost), then submit.
    const question = "How do I load the current user?";
    for (let attempt = 0; !pane(session).includes(question); attempt++) {
      if (attempt === 20) throw new Error(`the TUI never showed the typed question:\n${pane(session)}`);
      execFileSync("tmux", ["send-keys", "-t", session, "C-u"]);
      execFileSync("tmux", ["send-keys", "-t", session, "-l", question]);
      await sleep(500);
    }
    execFileSync("tmux", ["send-keys", "-t", session, "Enter"]);
    // While it streams, each screen read (every 10 ms or as fast as tmux answers) is looked at: a flash of the
    // partial, or of the text completing the rule's match, is counted even when the final screen is clean.
    const frames = { read: 0, withPartial: 0, withMatch: 0 };
    const screen = await waitForPane(session, /timeoutMs: 5_000/, 60_000, {
      everyMs: 10,
      onFrame: (frame) => {
        frames.read++;
        if (frame.includes(PARTIAL_MARK)) frames.withPartial++;
        if (/legacyFetch\(/.test(frame)) frames.withMatch++;
      },
    });
    return {
      screen,
      frames,
      // The patched pi's notice ("interrupted by rule"), or stock pi's ("interrupted the response (<rule>)").
      notice: screen.match(/[^\n]*(interrupted by rule|interrupted the response)[^\n]*/)?.[0]?.trim() ?? null,
      finalAnswerShown: screen.includes("fetchV2"),
      // Any cut-off code of the violating answer (the match completes at "legacyFetch(": a partial shows less).
      partialShown: /legacyFetch\(/.test(screen),
      failureShown: /Operation aborted|Request was aborted|Error:/.test(screen),
    };
  } finally {
    spawnSync("tmux", ["kill-session", "-t", session]);
    await server.close();
    home.dispose();
  }
}
