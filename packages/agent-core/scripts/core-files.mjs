// Where the patched pi-agent-core lives, and how to get its pristine (unpatched) twin for side-by-side checks.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
export const repoRoot = join(packageRoot, "..", "..");
// patches:rebase runs the suite against another version's patched core: PI_RAILS_CORE_DIR / PI_RAILS_CORE_PATCH.
export const patchFile =
  process.env.PI_RAILS_CORE_PATCH ?? join(repoRoot, "patches", "@earendil-works__pi-agent-core@1.6.0.patch");

/** The installed (patched) pi-agent-core package folder. */
export function patchedCoreDir() {
  if (process.env.PI_RAILS_CORE_DIR) return process.env.PI_RAILS_CORE_DIR;
  const require = createRequire(join(packageRoot, "package.json"));
  return dirname(require.resolve("@earendil-works/pi-agent-core/package.json"));
}

/**
 * A copy of pi-agent-core with the pi-rails patch reversed, under .cache/ in this package so that its
 * `@earendil-works/pi-ai` import resolves to the same pi-ai. Used by the bench and the "hook absent" test.
 */
export function ensureUpstreamCore() {
  const target = process.env.PI_RAILS_CORE_DIR
    ? join(process.env.PI_RAILS_CORE_DIR, "..", "upstream-pi-agent-core")
    : join(packageRoot, ".cache", "upstream-pi-agent-core");
  const marker = join(target, "dist", "agent-loop.js");
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(patchFile).mtimeMs) return target;
  const scratch = mkdtempSync(join(tmpdir(), "pi-rails-upstream-"));
  try {
    cpSync(join(patchedCoreDir(), "dist"), join(scratch, "dist"), { recursive: true });
    execFileSync("git", ["apply", "-R", patchFile], { cwd: scratch, stdio: "pipe" });
    rmSync(target, { recursive: true, force: true });
    mkdirSync(target, { recursive: true });
    cpSync(join(scratch, "dist"), join(target, "dist"), { recursive: true });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return target;
}

/** The files of the patched package that make up the loop (code and types, no source maps). */
export function coreDistFiles() {
  const dist = join(patchedCoreDir(), "dist");
  return readdirSync(dist)
    .filter((name) => name.endsWith(".js") || name.endsWith(".d.ts"))
    .map((name) => ({ name, path: join(dist, name) }));
}
