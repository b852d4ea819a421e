import { closeSync, constants, lstatSync, openSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { expandTilde } from "@pi-rails/agent-core/kit";

/**
 * What a cancelled call may still hold that its abort signal cannot reach. A `read` of a FIFO with no writer
 * blocks in `open()` on one of Node's worker threads: the tool returns on abort, but the blocked open stays, and a
 * `pi -p` whose run is done never exits. Opening the FIFO for writing (non-blocking) and closing it again lets the
 * blocked open return and read end-of-file, so the work really stops. Returns whether something was released.
 */
export function releaseCancelledCall(tool: string, args: unknown, cwd: string): boolean {
  if (tool !== "read") return false;
  const path = (args as { path?: unknown } | undefined)?.path;
  if (typeof path !== "string" || path === "") return false;
  const absolute = expandTilde(path);
  return releaseFifo(isAbsolute(absolute) ? absolute : resolve(cwd, absolute));
}

/** Open a FIFO write-only without blocking, then close it: a reader blocked in open() gets end-of-file. */
function releaseFifo(path: string): boolean {
  try {
    if (!lstatSync(path).isFIFO()) return false;
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    return true;
  } catch {
    // ENXIO: no reader is waiting (nothing to release); anything else: not ours to fix.
    return false;
  }
}
