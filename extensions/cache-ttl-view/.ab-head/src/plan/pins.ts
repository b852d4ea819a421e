import { isAbsolute, relative } from "node:path";
import { minimatch } from "minimatch";

/** Pins from settings and from `/cache-ttl pin`, merged. */
export interface PinSet {
  ids: ReadonlySet<string>;
  tools: ReadonlySet<string>;
  paths: readonly string[];
}

/** The path a tool call works on, when it names one. */
export function pathArgument(args: Record<string, unknown>): string | undefined {
  for (const key of ["path", "file_path", "filePath", "file"]) {
    const value = Object.hasOwn(args, key) ? args[key] : undefined;
    if (typeof value === "string" && value !== "") return value.startsWith("@") ? value.slice(1) : value;
  }
  return undefined;
}

/** Whether a tool block is pinned: by id, by tool name, or by a path glob (absolute paths also tried cwd-relative). */
export function isToolPinned(
  pins: PinSet,
  id: string,
  tool: string,
  args: Record<string, unknown>,
  cwd?: string,
): boolean {
  if (pins.ids.has(id) || pins.tools.has(tool)) return true;
  if (pins.paths.length === 0) return false;
  const path = pathArgument(args);
  if (path === undefined) return false;
  const candidates = [path];
  if (cwd && isAbsolute(path)) candidates.push(relative(cwd, path));
  return pins.paths.some((glob) =>
    candidates.some((p) => minimatch(p, glob, { dot: true, matchBase: !glob.includes("/") })),
  );
}
