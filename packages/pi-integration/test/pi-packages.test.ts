import { join } from "node:path";
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

const repoRoot = join(import.meta.dirname, "..", "..", "..");
const probe = join(import.meta.dirname, "fixtures", "probe.ts");
const EXTENSIONS = ["pi-ttsr", "rulebook", "steering-bridge", "cache-ttl-view"] as const;
/** What each extension registers, so the probe can tell that it started. */
const SIGNATURES: Record<(typeof EXTENSIONS)[number], { commands?: string[]; tools?: string[] }> = {
  "pi-ttsr": { commands: ["ttsr"] },
  rulebook: { commands: ["rulebook"], tools: ["read_rule"] },
  "steering-bridge": { commands: ["seams"] },
  "cache-ttl-view": { commands: ["cache-ttl"] },
};

function probeOutput(stderr: string): { commands: string[]; tools: string[] } {
  const line = stderr.split("\n").find((entry) => entry.startsWith("PROBE "));
  expect(line, `no PROBE line in stderr:\n${stderr}`).toBeDefined();
  return JSON.parse(line!.slice("PROBE ".length));
}

function expectAllLoaded(loaded: { commands: string[]; tools: string[] }) {
  for (const name of EXTENSIONS) {
    for (const command of SIGNATURES[name].commands ?? []) expect(loaded.commands, name).toContain(command);
    for (const tool of SIGNATURES[name].tools ?? []) expect(loaded.tools, name).toContain(tool);
  }
}

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer({ script: () => ({ text: "Hello from the loopback model." }) });
});
afterAll(async () => {
  await server.close();
});

describe("the four extensions are pi packages", () => {
  it("pi install puts each into a fresh HOME, pi list shows them, and pi starts with all of them loaded", async () => {
    const home: CliHome = prepareCliHome({ server });
    try {
      for (const name of EXTENSIONS) {
        const install = await runPi(["install", join(repoRoot, "extensions", name)], {
          home: home.home,
          cwd: home.cwd,
        });
        expect(install.code, install.stderr).toBe(0);
      }
      const list = await runPi(["list"], { home: home.home, cwd: home.cwd });
      expect(list.code).toBe(0);
      for (const name of EXTENSIONS) expect(list.stdout).toContain(join("extensions", name));

      const run = await runPi(["-p", "hello", "-e", probe], { home: home.home, cwd: home.cwd });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe("Hello from the loopback model.");
      expectAllLoaded(probeOutput(run.stderr));
      expect(run.stderr).not.toMatch(/Failed to load extension|stock pi/i);
    } finally {
      home.dispose();
    }
  }, 120_000);
});

describe("stock pi (the published 1.6.0, without the pi-rails patch)", () => {
  let stock: StockPi;
  beforeAll(() => {
    stock = installStockPi({ shared: true });
  }, 300_000);
  afterAll(() => stock?.dispose());

  it("loads all four without crashing, and those that need the patch say so once", async () => {
    const home: CliHome = prepareCliHome({ server });
    try {
      const args = ["-p", "hello", "-e", probe];
      for (const name of EXTENSIONS) args.push("-e", join(repoRoot, "extensions", name));
      const run = await runPi(args, { home: home.home, cwd: home.cwd, piCli: stock.cli });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe("Hello from the loopback model.");
      expectAllLoaded(probeOutput(run.stderr));
      for (const name of ["pi-ttsr", "steering-bridge"]) {
        const notices = run.stderr.split("\n").filter((line) => line.includes(`${name}:`) && /stock pi/i.test(line));
        expect(notices, `${name} on stock pi:\n${run.stderr}`).toHaveLength(1);
      }
    } finally {
      home.dispose();
    }
  }, 120_000);
});
