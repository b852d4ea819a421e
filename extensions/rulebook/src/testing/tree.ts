import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Write `files` (path relative to `root` -> content) under `root`. Test helper. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
}

/** A temp dir with `home/` and `home/work/project` (the cwd), removed by `dispose`. Test helper. */
export async function tempWorld(): Promise<{
  root: string;
  home: string;
  cwd: string;
  agentDir: string;
  dispose(): Promise<void>;
}> {
  const root = await mkdtemp(join(tmpdir(), "rulebook-"));
  const home = join(root, "home");
  const cwd = join(home, "work", "project");
  const agentDir = join(home, ".pi", "agent");
  await mkdir(cwd, { recursive: true });
  return { root, home, cwd, agentDir, dispose: () => rm(root, { recursive: true, force: true }) };
}
