/**
 * Throwaway directory trees for one test: a fake HOME with pi's agent dir, and a project dir.
 * Everything lives under one root so a single removal cleans up.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { relativeInside } from "@pi-rails/agent-core/kit";

export interface SandboxDirs {
  /** Root of the tree; removing it removes everything below. */
  root: string;
  /** Stands in for the user's HOME. */
  home: string;
  /** pi's agent dir, `<home>/.pi/agent` (what `~/.pi/agent` would be). */
  agentDir: string;
  /** The project directory (pi's cwd). */
  cwd: string;
}

/** Create `<tmp>/pi-testkit-XXXX/{home/.pi/agent,project}` (real paths, so no /tmp symlink surprises). */
export function createSandboxDirs(prefix = "pi-testkit-"): SandboxDirs {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const home = join(root, "home");
  const agentDir = join(home, ".pi", "agent");
  const cwd = join(root, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  return { root, home, agentDir, cwd };
}

/** Write `files` (relative path → content) under `baseDir`, creating folders; refuses paths escaping it. */
export function writeFiles(baseDir: string, files: Record<string, string> | undefined): void {
  for (const [name, content] of Object.entries(files ?? {})) {
    const target = resolve(baseDir, name);
    if (isAbsolute(name) || !relativeInside(baseDir, target)) {
      throw new Error(`writeFiles: "${name}" must be a relative path inside ${baseDir}`);
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

/** Write a settings object as pretty JSON (pi's settings.json format). */
export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Remove a sandbox tree; never throws (tests clean up in finally blocks). */
export function removeDir(path: string): void {
  rmSync(path, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Remove a tree from a detached process that outlives this one, so no test or hook waits for it: an npm install is
 * tens of thousands of files, and on a loaded CI machine removing one synchronously in an `afterAll` outlived the
 * hook's timeout and failed a suite whose tests had all passed.
 */
export function removeTreeInBackground(path: string): void {
  const script = `require("node:fs").rmSync(${JSON.stringify(path)}, { recursive: true, force: true })`;
  spawn(process.execPath, ["-e", script], { detached: true, stdio: "ignore" }).unref();
}
