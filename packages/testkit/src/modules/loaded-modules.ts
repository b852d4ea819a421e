import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

/** A loader hook that prints every module URL Node loads (ESM `import`, including what an import pulls in). */
const HOOKS =
  'export async function load(url, context, next) { console.log("LOADED " + url); return next(url, context); }';

/**
 * The files a fresh Node process loads to import `entry` (an absolute path), and the type of its default export.
 * For checking what a package entry really pulls in, e.g. that a bundled pi extension loads one module, not the
 * workspace behind it. Only ES module loads are seen (a `require` through createRequire is not).
 */
export function modulesLoadedBy(entry: string): { files: string[]; defaultExport: string } {
  const register = `import { register } from "node:module"; register(${JSON.stringify(
    `data:text/javascript,${encodeURIComponent(HOOKS)}`,
  )});`;
  const out = execFileSync(
    process.execPath,
    [
      "--import",
      `data:text/javascript,${encodeURIComponent(register)}`,
      "--input-type=module",
      "-e",
      `const m = await import(${JSON.stringify(pathToFileURL(entry).href)}); console.log("DEFAULT " + typeof m.default);`,
    ],
    { encoding: "utf8" },
  );
  const lines = out.split("\n");
  return {
    files: lines.filter((l) => l.startsWith("LOADED file:")).map((l) => fileURLToPath(l.slice("LOADED ".length))),
    defaultExport: lines.find((l) => l.startsWith("DEFAULT "))?.slice("DEFAULT ".length) ?? "(none)",
  };
}
