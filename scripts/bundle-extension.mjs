// Bundles the pi extension of the package in the current directory: src/extension.ts to dist/pi/extension.js,
// the package's `pi.extensions` entry. pi loads extensions through jiti, which reads, hashes and evaluates every
// module separately; one bundled module (plus its lazily loaded chunks) instead of dozens is most of what that
// costs at every pi start (see pi-ttsr's README, Start-up). npm dependencies and pi's own packages stay external
// (resolved from the package at run time, most of them loaded only when needed); our workspace packages
// (@pi-rails/*) are bundled in. Comments are dropped (most of the bytes); the source map leads back to src/.
import { existsSync, rmSync } from "node:fs";
import { rolldown } from "rolldown";

const OUT = "dist/pi";
// tsc writes src/pi/ to dist/pi/: a package with such a folder needs another bundle directory.
if (existsSync("src/pi")) throw new Error(`bundle-extension: src/pi/ would share ${OUT}/ with the bundle`);
// Chunk names carry content hashes: a stale chunk from an earlier build must not ship in the tarball.
rmSync(OUT, { recursive: true, force: true });

const isBundled = (id) => id.startsWith(".") || id.startsWith("/") || id.startsWith("@pi-rails/");

const bundle = await rolldown({
  input: { extension: "src/extension.ts" },
  platform: "node",
  external: (id) => !isBundled(id),
  logLevel: "warn",
});
await bundle.write({
  dir: OUT,
  format: "esm",
  entryFileNames: "[name].js",
  chunkFileNames: "[name]-[hash].js",
  comments: false,
  sourcemap: true,
});
await bundle.close();
