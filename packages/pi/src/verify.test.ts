import { describe, expect, it } from "vitest";
import type { PatchManifest } from "./manifest.ts";
import { parseManifest } from "./manifest.ts";
import { checkUpstream, mismatchMessage, sha256 } from "./verify.ts";

const PRISTINE = "export const loop = 1;";
const PATCHED = "export const loop = 1; // [pi-rails]";
const manifest: PatchManifest = {
  format: 1,
  upstream: { "@earendil-works/pi-agent-core": "0.73.1" },
  patches: [],
  files: [
    {
      package: "@earendil-works/pi-agent-core",
      path: "dist/agent-loop.js",
      upstreamSha256: sha256(PRISTINE),
      patched: "a/agent-loop.js",
      patchedSha256: sha256(PATCHED),
    },
    {
      package: "@earendil-works/pi-agent-core",
      path: "dist/added.js",
      upstreamSha256: null,
      patched: "a/added.js",
      patchedSha256: sha256("added"),
    },
  ],
};
const check = (files: Record<string, string>) =>
  checkUpstream(
    manifest,
    (pkg, path) => `/u/${pkg}/${path}`,
    (at) => (at in files ? Buffer.from(files[at] as string) : undefined),
  );
const LOOP = "/u/@earendil-works/pi-agent-core/dist/agent-loop.js";
const ADDED = "/u/@earendil-works/pi-agent-core/dist/added.js";

describe("checkUpstream", () => {
  it("swaps in every file of a pristine upstream, the added one included", () => {
    const state = check({ [LOOP]: PRISTINE });
    expect(state.mismatches).toEqual([]);
    expect(state.toSwap.map((file) => file.path)).toEqual(["dist/agent-loop.js", "dist/added.js"]);
  });

  it("swaps nothing where upstream is already patched (the pnpm workspace)", () => {
    expect(check({ [LOOP]: PATCHED, [ADDED]: "added" })).toEqual({ mismatches: [], toSwap: [] });
  });

  it("refuses a changed file, a missing one, and an upstream that already has the added file", () => {
    const state = check({ [LOOP]: "export const loop = 2;", [ADDED]: "upstream grew it" });
    expect(state.mismatches.map((m) => `${m.file.path}:${m.reason}`)).toEqual([
      "dist/agent-loop.js:changed",
      "dist/added.js:exists",
    ]);
    expect(check({}).mismatches.map((m) => m.reason)).toEqual(["missing"]);
  });

  it("says what the patch was made for, what is installed and which file differs", () => {
    const state = check({ [LOOP]: "changed" });
    const message = mismatchMessage(manifest, state.mismatches, { "@earendil-works/pi-agent-core": "0.74.0" });
    expect(message).toContain("refusing to start");
    expect(message).toContain("made for: @earendil-works/pi-agent-core@0.73.1");
    expect(message).toContain("installed:              @earendil-works/pi-agent-core@0.74.0");
    expect(message).toContain(
      `@earendil-works/pi-agent-core/dist/agent-loop.js differs from the file the patch was made for (${LOOP})`,
    );
    expect(message).toContain("npm install -g @pi-rails/pi");
  });
});

describe("parseManifest", () => {
  it("names the file and what is wrong", () => {
    expect(() => parseManifest("{", "/x/manifest.json")).toThrow(/\/x\/manifest\.json: not JSON/);
    expect(() => parseManifest('{"format":2}', "/x/manifest.json")).toThrow(/not a pi-rails patch manifest/);
    expect(() => parseManifest('{"format":1,"upstream":{},"files":[{}]}', "/m")).toThrow(/\/m: files\[0\] lacks/);
  });
});
