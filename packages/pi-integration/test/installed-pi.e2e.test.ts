import { execFile, spawnSync } from "node:child_process";
import { request } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const repoRoot = join(import.meta.dirname, "..", "..", "..");

/** True when something still answers on the registry's address. */
function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${url}-/ping`, { agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on("error", () => resolve(false));
    req.on("timeout", () => {
      req.destroy();
      resolve(false);
    });
    req.end();
  });
}

// Issue 19: the whole path through a real registry, as `pnpm demo --installed` runs it (scripts/demo/installed.mjs):
// a release from a temp clone to a local verdaccio, `npm i -g @pi-rails/pi` and `pi install npm:...` in a fresh
// HOME and npm prefix, the three demo stages on the installed pi 1.6, an independent release and `pi update --all`.
// One run, one registry and one install for every assertion below; each line is a fact the demo measured, not a
// message.
describe("pnpm demo --installed", () => {
  it("releases through a local registry, installs the patched pi and the four extensions, and they work", async () => {
    const { stdout } = await run(process.execPath, [join(repoRoot, "scripts", "demo.mjs"), "--installed"], {
      cwd: repoRoot,
      timeout: 900_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: "1" },
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`${error.message}\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    console.log(stdout.slice(stdout.indexOf("wall time per step")));

    // The maintainer's flow: every package at 0.1.0, tagged, on the registry.
    expect(stdout).toMatch(/✓ first release: \d+ packages at 0\.1\.0 on the local registry/);
    expect(stdout).toContain("✓ one git tag per package");
    expect(stdout).toMatch(/@pi-rails\/pi: registry has 0\.1\.0\n/);
    // The user's install: both versions, small, one pi-ai and pi-tui, the hash check, stock pi side by side.
    expect(stdout).toMatch(/\$ pi --version\n {2}1\.6\.0 \(pi-rails 0\.1\.0/);
    expect(stdout).toMatch(/✓ @pi-rails\/pi adds \d+\.\d\d MB/);
    expect(stdout).toContain("✓ one copy of pi-ai and one of pi-tui");
    // The launcher's own refusal of an edited file of the rebuilt bundle, printed by the demo.
    expect(stdout).toMatch(
      /dist\/bundle\/cli-runtime\.js edited, pi exits 1:\n {4}pi-rails: refusing to (start|run) pi/,
    );
    expect(stdout).toContain("✓ an edited bundle file: pi refuses to run, naming it");
    expect(stdout).toContain("✓ stock pi installed: EEXIST; keeping both gives pi (stock) and pi-rails");
    expect(stdout).toContain("✓ stock pi installed: replacing it gives the patched pi");
    expect(stdout).toContain("✓ pi list shows the four extensions");
    expect(stdout).toContain(
      "✓ pi list: each extension is the one pi installed in its agent dir, none from the checkout",
    );
    expect(stdout).toContain("✓ pi install -l (npm install --prefix) installed into the project");
    // The installed pi on the embedded model, with the installed extensions (no -e, nothing from the checkout).
    expect(stdout).not.toMatch(/\$ pi[^\n]* -e /);
    expect(stdout).toContain('injected: <system-interrupt reason="rule_violation" rule="no-legacy-fetch"');
    expect(stdout).toContain("✓ interrupt and retry: the stream was cut, the rule injected");
    expect(stdout).toContain("always-apply rule in the system prompt: yes");
    expect(stdout).toContain("✓ a rulebook rule in the prompt");
    expect(stdout).toContain("Tool call call_slow_suite (bash) was cancelled by the host: user clicked stop");
    expect(stdout).toContain("✓ pi-steer cancel of a running tool");
    expect(stdout).toContain("the 50 KB file is in the request: no");
    expect(stdout).toContain("✓ a prune after the TTL");
    // A user who keeps stock pi 1.6: the extensions from `pi install`, each headline behaviour (issue 36's list).
    expect(stdout).toContain("✓ stock pi 1.6.0 from npm, the four extensions from `pi install`, no patched pi");
    expect(stdout).toContain(
      "✓ stock pi: a prose rule interrupts the stream; the retry carries the rule, not the partial",
    );
    expect(stdout).toContain(
      "✓ stock pi: a tool rule interrupts the streamed call before it runs; the retry carries the rule, not the call",
    );
    if (spawnSync("tmux", ["-V"]).status === 0) {
      expect(stdout).toContain(
        `✓ stock pi's TUI: the interrupt notice and the retried answer; no cut-off text, no "Operation aborted"`,
      );
    }
    expect(stdout).toContain("✓ stock pi: pi-steer cancel of a running tool");
    expect(stdout).toContain(
      "✓ stock pi: interrupt_immediate holds the pending batch; the next request is valid on all four wire formats",
    );
    expect(stdout).toContain("✓ stock pi: a prune after the TTL");
    expect(stdout).toContain(
      "✓ stock pi: with cache warming off a prune after the TTL; none while pi keeps the cache warm",
    );
    // Independent publishing and `pi update --all` (pi 1.6: a bare `pi update` is pi alone).
    expect(stdout).toContain("✓ independent release: only @pi-rails/cache-ttl-view got a new version (0.1.1)");
    expect(stdout).toContain("@pi-rails/cache-ttl-view: 0.1.0 → 0.1.1");
    expect(stdout).toContain("✓ pi update --all brought exactly that update");
    expect(stdout).toContain("✓ pi update --all kept the user on @pi-rails/pi");
    expect(stdout).toContain(
      "✓ pi update --self installed @pi-rails/pi 0.1.1 (not stock pi) and left the extensions alone",
    );
    // The TUI, where tmux is installed (.ci/run installs it).
    if (spawnSync("tmux", ["-V"]).status === 0) {
      expect(stdout).toContain("✓ the TUI: the interrupt notice and only the retried answer");
    } else {
      expect(stdout).toContain("tmux is not installed: the TUI is not checked");
    }
    expect(stdout).not.toContain("✗");
    // Wall time per step, and no registry left behind.
    expect(stdout).toMatch(/wall time per step:\n(\s+\d+\.\d s {2}.+\n)+\s+\d+\.\d s {2}total/);
    const url = stdout.match(/http:\/\/127\.0\.0\.1:\d+\//)?.[0];
    expect(url).toBeDefined();
    expect(await answers(url as string), "the registry still answers after the demo").toBe(false);
  }, 900_000);
});
