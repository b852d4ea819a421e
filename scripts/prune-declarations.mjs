// Removes the declaration files of a built package that no entry of its `exports` reaches: a package whose only
// entry is its index ships the types of what it exports, not those of its internal modules (nothing can import
// them: `exports` does not name them). Run after tsc, in the package's folder: `node prune-declarations.mjs`.
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const manifest = JSON.parse(readFileSync("package.json", "utf8"));
/** The `types` of each entry of `exports` (and the top-level `types`). */
const entries = new Set([manifest.types]);
for (const entry of Object.values(manifest.exports ?? {})) if (entry?.types) entries.add(entry.types);
entries.delete(undefined);

/** Every declaration file reachable from the entries through relative imports. */
const reached = new Set();
const queue = [...entries].map((p) => join(".", p));
while (queue.length > 0) {
  const file = queue.pop();
  if (reached.has(file) || !existsSync(file)) continue;
  reached.add(file);
  const text = readFileSync(file, "utf8");
  for (const [, specifier] of text.matchAll(/(?:from|import\()\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = join(dirname(file), specifier).replace(/\.(?:ts|js|mts|mjs)$/, "");
    queue.push(`${target}.d.ts`);
  }
}

const removed = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.name.endsWith(".d.ts") && !reached.has(path)) {
      rmSync(path);
      rmSync(`${path}.map`, { force: true });
      removed.push(relative(".", path));
    }
  }
};
if (reached.size === 0) throw new Error("prune-declarations: no entry's types were found; run it after tsc");
walk("dist");
console.log(`prune-declarations: ${reached.size} kept, ${removed.length} removed`);
