// The pi entry (`pi.extensions`) is one bundled module, not the ~60 modules of src/ and the workspace packages:
// pi loads extensions through jiti, which reads, hashes and evaluates every module separately, and that per-module
// cost was most of what pi-ttsr added to a session's start (see the README's start-up numbers).
// npm dependencies stay external (resolved from this package at run time, most of them loaded only when needed);
// our workspace packages (@pi-rails/rulebook, @pi-rails/agent-core) are bundled in.
import { defineConfig } from "rolldown";

const isBundled = (id) => id.startsWith(".") || id.startsWith("/") || id.startsWith("@pi-rails/");

export default defineConfig({
  input: { extension: "src/extension.ts" },
  platform: "node",
  external: (id) => !isBundled(id),
  output: {
    dir: "dist/pi",
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "[name]-[hash].js",
    // Comments are most of the bytes pi's loader reads, hashes and parses; the source map leads back to src/.
    comments: false,
    sourcemap: true,
  },
});
