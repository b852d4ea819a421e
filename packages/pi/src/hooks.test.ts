import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Verifier } from "./hooks.ts";
import { createHost } from "./host.ts";
import { sha256, type Zone } from "./verify.ts";

const entry = (text: string) => ({ sha256: sha256(text), size: Buffer.byteLength(text) });
let dir: string;
let zones: Zone[];
let stderr: string;

// Real files in a temp folder: a bundle with a worker, and an upstream package with code and its wasm.
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pi-rails-verifier-"));
  mkdirSync(join(dir, "bundle"));
  mkdirSync(join(dir, "photon"));
  writeFileSync(join(dir, "bundle", "worker.js"), "worker();");
  writeFileSync(join(dir, "photon", "photon.js"), "photon();");
  writeFileSync(join(dir, "photon", "photon_bg.wasm"), "wasm");
  zones = [
    { name: "the bundle", root: join(dir, "bundle"), files: { "worker.js": entry("worker();") } },
    {
      name: "photon",
      version: "0.3.4",
      root: join(dir, "photon"),
      files: { "photon.js": entry("photon();"), "photon_bg.wasm": entry("wasm") },
    },
  ];
  stderr = "";
  vi.spyOn(process.stderr, "write").mockImplementation((text) => {
    stderr += String(text);
    return true;
  });
  vi.spyOn(process, "exit").mockImplementation((code) => {
    throw new Error(`exit ${code}`);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe("Verifier", () => {
  it("reads a recorded file and hands back its bytes", () => {
    expect(new Verifier(zones).read(join(dir, "bundle", "worker.js")).toString()).toBe("worker();");
  });

  it("exits 1 with the reason on an edited file, and on a path outside every zone", () => {
    writeFileSync(join(dir, "bundle", "worker.js"), "worker(1)");
    expect(() => new Verifier(zones).read(join(dir, "bundle", "worker.js"))).toThrow("exit 1");
    expect(stderr).toContain("worker.js differs from the file the build recorded");
    expect(() => new Verifier(zones).read(join(dir, "elsewhere.js"))).toThrow("exit 1");
    expect(stderr).toContain("is neither in the bundle nor in an upstream package it loads");
  });

  it("checks a package's wasm when its first module loads (pi reads it by path, not through a hook)", () => {
    writeFileSync(join(dir, "photon", "photon_bg.wasm"), "WASM");
    const verifier = new Verifier(zones);
    expect(() => verifier.check(join(dir, "photon", "photon.js"), "photon();")).toThrow("exit 1");
    expect(stderr).toContain("photon_bg.wasm differs");
  });
});

describe("the host's worker check", () => {
  const host = () =>
    createHost({
      upstreamDir: dir,
      versionLine: (version) => version,
      selfUpdate: async () => 0,
      verifier: new Verifier(zones),
      workers: { "worker.js": ["photon"] },
    });
  const worker = () => new URL(`file://${join(dir, "bundle", "worker.js")}`);

  it("passes a worker whose file and packages are as built, and returns its URL", () => {
    expect(host().verifiedWorker(worker()).href).toBe(worker().href);
  });

  it("refuses a worker whose package was changed (a worker thread runs no module hooks)", () => {
    writeFileSync(join(dir, "photon", "photon.js"), "");
    expect(() => host().verifiedWorker(worker())).toThrow("exit 1");
    expect(stderr).toContain("photon.js is empty");
  });
});
