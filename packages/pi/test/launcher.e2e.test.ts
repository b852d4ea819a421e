import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import {
  type CliHome,
  installStockPi,
  type ModelServer,
  prepareCliHome,
  runPi,
  type StockPi,
  startModelServer,
} from "@pi-rails/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PatchManifest } from "../src/manifest.ts";

const packageRoot = join(import.meta.dirname, "..");
const manifest = JSON.parse(
  readFileSync(join(packageRoot, "dist", "bundle", "manifest.json"), "utf8"),
) as PatchManifest;
const patched = manifest.patches.length > 0;
// A build made before the patch series was installed runs outside a checkout only when told to (see cli.ts).
const allowUnpatched = patched ? {} : { PI_RAILS_ALLOW_UNPATCHED: "1" };

let stock: StockPi;
let installed: string;
let bundle: string;
let launcher: string;
let stockBundleCli: string;
let server: ModelServer;
let probe: string;
let home: CliHome;

// The launcher next to the published pi 1.6.0 (installed from the registry by the testkit), laid out as
// `npm i @pi-rails/pi` lays it out: it finds upstream pi and the runtime packages through node_modules.
beforeAll(async () => {
  stock = installStockPi({ version: "1.6.0" });
  installed = join(stock.dir, "node_modules", "@pi-rails", "pi");
  mkdirSync(installed, { recursive: true });
  for (const entry of ["package.json", "bin", "dist"]) {
    cpSync(join(packageRoot, entry), join(installed, entry), { recursive: true });
  }
  bundle = join(installed, "dist", "bundle");
  launcher = join(installed, "bin", "pi.mjs");
  stockBundleCli = join(stock.dir, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");
  probe = join(stock.dir, "probe.ts");
  writeFileSync(
    probe,
    `export default function (pi: any) {
  const marker = (globalThis as any)[Symbol.for("@pi-rails/pi-patch")];
  console.error("PROBE " + JSON.stringify({ features: marker?.features ?? null }));
}
`,
  );
  server = await startModelServer({ script: () => ({ text: "hello from the model" }) });
  home = prepareCliHome({ server });
}, 300_000);
afterAll(async () => {
  stock?.dispose();
  home?.dispose();
  await server?.close();
}, 120_000);

const run = (args: string[], env: Record<string, string> = {}, node = process.execPath): SpawnSyncReturns<string> =>
  spawnSync(node, [launcher, ...args], {
    encoding: "utf8",
    cwd: home.cwd,
    env: {
      ...process.env,
      HOME: home.home,
      PI_CODING_AGENT_DIR: home.agentDir,
      PI_OFFLINE: "1",
      ...allowUnpatched,
      ...env,
    },
    timeout: 120_000,
  });
const probeOf = (stderr: string) =>
  JSON.parse(
    stderr
      .split("\n")
      .find((line) => line.startsWith("PROBE "))
      ?.slice(6) ?? "null",
  );
/** A bundle file whose name starts with `prefix` (chunk names carry a content hash). */
const chunk = (prefix: string) => {
  const name = readdirSync(bundle).find((file) => file.startsWith(prefix) && file.endsWith(".js"));
  if (!name) throw new Error(`no ${prefix}*.js in ${bundle}`);
  return join(bundle, name);
};
/** Runs `body` with `path` changed, then puts the original bytes back (as a regular file). */
function withChanged(path: string, change: (original: Buffer) => void, body: () => void): void {
  const original = readFileSync(path);
  try {
    change(original);
    body();
  } finally {
    rmSync(path, { force: true });
    writeFileSync(path, original);
  }
}
/** The same bytes with one byte changed (same size: only the hash can tell). */
const flipped = (bytes: Buffer) => {
  const copy = Buffer.from(bytes);
  const at = copy.indexOf("function");
  if (at === -1) throw new Error("no `function` to change");
  copy[at] = "F".charCodeAt(0);
  return copy;
};
const expectRefused = (result: SpawnSyncReturns<string>, ...said: string[]) => {
  expect(result.status, result.stderr).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(/^pi-rails: refusing to start pi/);
  for (const text of said) expect(result.stderr).toContain(text);
};

describe("@pi-rails/pi's pi command, installed next to the published pi 1.6.0", () => {
  it("prints pi's version and the patch, decided by pi's own argument parser", () => {
    const result = run(["--version"]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toBe(""); // no warning of Node's (the module hooks) nor of the launcher's
    expect(result.stdout.trim()).toMatch(
      patched
        ? /^1\.6\.0 \(pi-rails \d+\.\d+\.\d+: @pi-rails\/pi, patched @earendil-works\/pi-coding-agent\)$/
        : /^1\.6\.0 \(pi-rails \d+\.\d+\.\d+: @pi-rails\/pi, UNPATCHED /,
    );
    // -v is the version flag where pi's parser says so, not anywhere in argv; an unknown flag fails as in pi.
    const unknown = run(["-x", "--version"]);
    expect(unknown.status).toBe(1);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toContain("Unknown option: -x");
    const install = run(["install", "npm:x", "-v"]);
    expect(install.status).toBe(1);
    expect(install.stdout).not.toContain("1.6.0");
    expect(install.stderr).toContain('Unknown option -v for "install"');
  });

  it("runs the bundle against a model (the patch marker and API when patched), as stock pi 1.6 runs", async () => {
    const [ours, theirs] = await Promise.all([
      runPi(["-p", "hi", "-e", probe], { home, piCli: launcher, env: allowUnpatched, timeoutMs: 150_000 }),
      runPi(["-p", "hi", "-e", probe], { home, piCli: stockBundleCli, timeoutMs: 150_000 }),
    ]);
    expect(ours.code, ours.stderr).toBe(0);
    expect(ours.stdout).toContain("hello from the model");
    expect(probeOf(ours.stderr)).toEqual({
      features: patched ? ["stream_text", "checkpoint", "loop_checkpoint"] : null,
    });
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(theirs.stdout).toContain("hello from the model");
    expect(probeOf(theirs.stderr)).toEqual({ features: null });
  }, 180_000);

  it("refuses an edited bundle file when it loads: the entry's own graph at once, a lazy chunk when pi imports it", () => {
    withChanged(
      join(bundle, "cli-runtime.js"),
      (original) => writeFileSync(join(bundle, "cli-runtime.js"), flipped(original)),
      () =>
        expectRefused(run(["--version"]), `${join(bundle, "cli-runtime.js")} differs from the file the build recorded`),
    );
    // The chat-completions provider loads only when a request goes out: `--version` runs, `-p` is refused.
    const provider = chunk("openai-completions-");
    withChanged(
      provider,
      (original) => writeFileSync(provider, flipped(original)),
      () => {
        expect(run(["--version"]).status).toBe(0);
        expectRefused(run(["-p", "hi"]), `${provider} differs from the file the build recorded`);
      },
    );
  }, 120_000);

  it("refuses an emptied bundle file before anything runs, even one loaded only later", () => {
    const provider = chunk("openai-completions-");
    withChanged(
      provider,
      () => writeFileSync(provider, ""),
      () => expectRefused(run(["--version"]), `${provider} is empty`),
    );
  });

  it("refuses a bundle file replaced by a symlink to a byte-identical copy (real paths are checked)", () => {
    const copies = mkdtempSync(join(tmpdir(), "pi-rails-copy-"));
    try {
      const entry = join(bundle, "cli-runtime.js");
      withChanged(
        entry,
        (original) => {
          writeFileSync(join(copies, "cli-runtime.js"), original);
          rmSync(entry);
          symlinkSync(join(copies, "cli-runtime.js"), entry);
        },
        () => expectRefused(run(["--version"]), `${entry} is a symlink, not the file the build wrote`),
      );
      // An upstream file the bundle loads (jiti, when pi loads an extension), swapped for a link to a copy.
      const jitiDir = join(stock.dir, "node_modules", "jiti");
      const jiti = join(jitiDir, "dist", "jiti.cjs");
      withChanged(
        jiti,
        (original) => {
          writeFileSync(join(copies, "jiti.cjs"), original);
          rmSync(jiti);
          symlinkSync(join(copies, "jiti.cjs"), jiti);
        },
        () =>
          expectRefused(
            run(["-p", "hi", "-e", probe]),
            `resolves to ${join(copies, "jiti.cjs")}, outside jiti@${manifest.upstream["jiti"]?.version}`,
          ),
      );
      // And the same upstream file edited in place.
      withChanged(
        jiti,
        (original) => writeFileSync(jiti, flipped(original)),
        () => expectRefused(run(["-p", "hi", "-e", probe]), `${jiti} differs from the file the build recorded`),
      );
    } finally {
      rmSync(copies, { recursive: true, force: true });
    }
  }, 120_000);

  it("refuses when upstream pi is not the version the bundle was built from", () => {
    const upstream = join(stock.dir, "node_modules", "@earendil-works", "pi-coding-agent", "package.json");
    withChanged(
      upstream,
      (original) => writeFileSync(upstream, original.toString().replace('"version": "1.6.0"', '"version": "1.6.1"')),
      () => expectRefused(run(["--version"]), "is 1.6.1, the bundle was built from 1.6.0"),
    );
  });

  it("refuses a bundle run without the launcher, and a missing manifest", () => {
    const direct = spawnSync(process.execPath, [join(bundle, "cli-runtime.js"), "--version"], { encoding: "utf8" });
    expect(direct.status).not.toBe(0);
    expect(direct.stderr).toContain("this bundle runs only through the @pi-rails/pi launcher");
    const path = join(bundle, "manifest.json");
    renameSync(path, `${path}.away`);
    try {
      expectRefused(run(["--version"]), `${path} is missing`);
    } finally {
      renameSync(`${path}.away`, path);
    }
  });

  it("never runs stock pi's self-update: every `pi update` of pi itself goes to the launcher's", () => {
    for (const args of [["update"], ["update", ""], ["update", "--self"], ["update", "pi"], ["update", "--all"]]) {
      const result = run(args);
      expect(result.status, args.join(" ")).toBe(1);
      expect(result.stderr).toContain("cannot update this installation of @pi-rails/pi");
      expect(`${result.stdout}${result.stderr}`).not.toContain("@earendil-works/pi-coding-agent@");
    }
  });

  it("says in one line which Node it needs, on an older Node", () => {
    const simulated = spawnSync(
      process.execPath,
      [
        "--import",
        'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"22.18.0"})',
        launcher,
        "--version",
      ],
      { encoding: "utf8" },
    );
    expect(simulated.status).toBe(1);
    expect(simulated.stdout).toBe("");
    expect(simulated.stderr).toBe(
      "pi-rails: @pi-rails/pi needs Node.js >=22.19 (pi 1.6 does); this is Node.js 22.18.0.\n",
    );
    // The machine's own Node outside this workspace (Node 20 on the project's machines), if it has one.
    const path = (process.env["PATH"] ?? "").split(delimiter).filter((dir) => !dir.includes("node_modules"));
    const system = spawnSync("node", ["-p", "process.versions.node"], {
      encoding: "utf8",
      env: { PATH: path.join(delimiter) },
    });
    if (system.status !== 0) return;
    const version = system.stdout.trim();
    const result = spawnSync("node", [launcher, "--version"], {
      encoding: "utf8",
      env: { ...process.env, PATH: path.join(delimiter), ...allowUnpatched },
    });
    if (version.localeCompare("22.19.0", undefined, { numeric: true }) < 0) {
      expect(result.stderr).toBe(
        `pi-rails: @pi-rails/pi needs Node.js >=22.19 (pi 1.6 does); this is Node.js ${version}.\n`,
      );
      expect(result.status).toBe(1);
    } else {
      expect(result.status, result.stderr).toBe(0);
    }
  });
});
