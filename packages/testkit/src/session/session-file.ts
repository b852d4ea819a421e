/**
 * Reads a pi session file (JSONL: a header line, then one entry per line) so tests can assert
 * what pi persisted, e.g. messages or extension state written with `pi.appendEntry`.
 */
import { existsSync, readFileSync } from "node:fs";
import type { FileEntry } from "@earendil-works/pi-coding-agent";
import { parseJsonLines } from "../json-lines.ts";

/**
 * All entries of a session file, header first. A missing file gives `[]`: pi only creates the
 * file once the first assistant message exists.
 */
export function readSessionFile(path: string | undefined): FileEntry[] {
  if (!path || !existsSync(path)) return [];
  return parseJsonLines<FileEntry>(readFileSync(path, "utf8"), path);
}
