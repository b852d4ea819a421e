// Bundles the pi extension of the package in the current directory (pi-ttsr, cache-ttl-view): src/extension.ts to
// dist/pi/extension.js, the package's `pi.extensions` entry (and other entries named on the command line). pi loads extensions through jiti, which transforms and
// evaluates TypeScript modules one by one (a built ES module goes to Node's own loader); one bundled module (plus
// its lazily loaded chunks) instead of dozens is most of what that costs at every pi start (see pi-ttsr's README,
// Start-up). npm dependencies stay external (resolved from the package at run time, most of them loaded only when
// needed); our workspace packages (@pi-rails/*) are bundled in. Comments and whitespace are dropped (most of the
// bytes); the source map leads back to src/.
import { existsSync, rmSync } from "node:fs";
import { rolldown } from "rolldown";

const OUT = "dist/pi";
// tsc writes src/pi/ to dist/pi/: a package with such a folder needs another bundle directory.
if (existsSync("src/pi")) throw new Error(`bundle-extension: src/pi/ would share ${OUT}/ with the bundle`);
// Chunk names carry content hashes: a stale chunk from an earlier build must not ship in the tarball.
rmSync(OUT, { recursive: true, force: true });

const isBundled = (id) => id.startsWith(".") || id.startsWith("/") || id.startsWith("@pi-rails/");

/** What pi's loader aliases to its own copy for TypeScript extensions: its packages, and TypeBox. */
const PI_ALIASED = /^(@earendil-works\/|typebox$|typebox\/|@sinclair\/typebox)/;

/**
 * pi's loader hands a built `.js` ES module to Node's own loader, outside the aliases it gives TypeScript
 * extensions; a run-time import of a pi package from the bundle would resolve from this package's node_modules
 * and load a second pi (on stock pi, a patched pi-agent-core from a dev install, which then announces the patch),
 * and one of TypeBox would find none (an extension has it as an optional peer at most). Type-only imports are fine:
 * they are erased before this check.
 */
function refusePiImports(id, importer) {
  if (PI_ALIASED.test(id)) {
    throw new Error(
      `bundle-extension: ${importer ?? "the extension"} imports ${id} at run time; a bundled pi extension must not ` +
        "(pi would not alias it to its own copy). Use `import type`, plain JSON Schema for tool parameters, or take " +
        "what you need from the extension API.",
    );
  }
}

/**
 * Entries: the pi extension, plus any `name=src/file.ts` given on the command line (pi-ttsr bundles its library and
 * CLI too, so its tarball ships one copy of its code: chunks shared between the entries).
 */
const extra = Object.fromEntries(process.argv.slice(2).map((arg) => arg.split("=")));
const bundle = await rolldown({
  input: { extension: "src/extension.ts", ...extra },
  platform: "node",
  external: (id, importer) => {
    refusePiImports(id, importer);
    return !isBundled(id);
  },
  logLevel: "warn",
});
await bundle.write({
  dir: OUT,
  format: "esm",
  entryFileNames: "[name].js",
  chunkFileNames: "[name]-[hash].js",
  comments: false,
  // Names stay as written (no mangling: stack traces read as the source); whitespace dropped and the code compressed,
  // a third fewer bytes to install.
  minify: { compress: true, mangle: false, codegen: { removeWhitespace: true } },
  sourcemap: true,
});
await bundle.close();
