#!/usr/bin/env node
// For bench/startup.mjs only: the launcher's steps for the install in argv[2] (the start-up checks, the host
// object, the bundle) WITHOUT the verifier's module hooks, so the bench can show what hashing each loaded file
// costs. Not part of the package.
import { realpathSync } from "node:fs";
import { createRequire, enableCompileCache } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

enableCompileCache();
const installed = realpathSync(process.argv[2]);
process.argv.splice(2, 1); // pi reads its arguments from process.argv
const { prepare, createHost, HOST_KEY, Verifier } = await import(
  pathToFileURL(join(installed, "dist", "launcher.js")).href
);
const { manifest, zones, upstreamDir } = prepare(installed);
globalThis[HOST_KEY] = createHost({
  upstreamDir,
  versionLine: (version) => version,
  selfUpdate: async () => 1,
  verifier: new Verifier(zones),
  workers: manifest.workers,
});
createRequire(import.meta.url)(join(zones[0].root, manifest.bundle.entry));
