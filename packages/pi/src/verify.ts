/**
 * The launcher's checks, as pure decisions over paths and bytes (the module hooks and the start-up check feed
 * them real files): a file of the bundle, or of an upstream package the bundle loads, runs only when it sits where
 * the manifest says (its real path: a symlink out of its folder is refused, even to identical bytes) and has the
 * sha256 the build recorded.
 */
import { createHash } from "node:crypto";
import { isBuiltin } from "node:module";
import { sep } from "node:path";
import type { FileEntry } from "./manifest.ts";

/** sha256 of bytes, hex: the one hash the build and the launcher both use. */
export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A folder whose every loaded file must be in the manifest: the bundle, or one upstream package. */
export interface Zone {
  /** "the bundle", or the upstream package's name. */
  name: string;
  /** The upstream package's version (undefined for the bundle). */
  version?: string;
  /** Real path of the folder (no trailing separator). */
  root: string;
  files: Record<string, FileEntry>;
}

/** Where a real path falls: a zone and the file's path inside it ("/"-separated), or undefined (not ours). */
export function zoneOf(zones: readonly Zone[], path: string): { zone: Zone; file: string } | undefined {
  for (const zone of zones) {
    if (path.startsWith(zone.root + sep))
      return {
        zone,
        file: path
          .slice(zone.root.length + 1)
          .split(sep)
          .join("/"),
      };
  }
  return undefined;
}

const label = (zone: Zone) => (zone.version ? `${zone.name}@${zone.version}` : zone.name);

/** Why `bytes`, loaded from `path`, may not run; undefined when it may (or when the path is in no zone). */
export function checkFile(zones: readonly Zone[], path: string, bytes: Uint8Array | string): string | undefined {
  const at = zoneOf(zones, path);
  if (!at) return undefined;
  const entry = at.zone.files[at.file];
  if (!entry) return `${path} is not a file of ${label(at.zone)} as built`;
  const size = typeof bytes === "string" ? Buffer.byteLength(bytes) : bytes.byteLength;
  if (size !== entry.size || sha256(bytes) !== entry.sha256) {
    return size === 0 ? `${path} is empty` : `${path} differs from the file the build recorded (sha256 mismatch)`;
  }
  return undefined;
}

const isRelative = (specifier: string) =>
  specifier.startsWith("./") || specifier.startsWith("../") || specifier === "." || specifier === "..";
const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/**
 * Why a resolution may not be followed; undefined when it may. Node resolves symlinks, so `resolved` is a real
 * path: a relative import of a zone's file must stay in that zone, and a package the manifest names must resolve
 * into the folder that was checked for it (a file swapped for a symlink to a copy elsewhere lands outside).
 */
export function checkResolution(
  zones: readonly Zone[],
  parent: string | undefined,
  specifier: string,
  resolved: string | undefined,
): string | undefined {
  if (parent === undefined || resolved === undefined || isBuiltin(specifier)) return undefined;
  const from = zoneOf(zones, parent);
  if (!from) return undefined;
  const to = zoneOf(zones, resolved);
  if (isRelative(specifier)) {
    if (to?.zone !== from.zone) {
      return `${specifier} (imported by ${parent}) resolves to ${resolved}, outside ${label(from.zone)} (${from.zone.root}): a symlink?`;
    }
    return undefined;
  }
  const named = zones.find((zone) => zone.name === packageOf(specifier));
  if (named && to?.zone !== named) {
    return `${specifier} (imported by ${parent}) resolves to ${resolved}, not into ${label(named)} (${named.root})`;
  }
  return undefined;
}

/** What the start-up check sees of a file without reading it. */
export interface FileStat {
  isFile: boolean;
  isSymbolicLink: boolean;
  size: number;
}

/**
 * The cheap check of every file of a zone, before anything runs: each exists at its place as a regular file (not
 * a symlink) of the recorded size. An emptied or truncated file, or a swapped-in link, is refused even when it
 * would only be loaded later; the contents are hashed as they load.
 */
export function checkLayout(zone: Zone, lstat: (path: string) => FileStat | undefined): string[] {
  const problems: string[] = [];
  for (const [file, entry] of Object.entries(zone.files)) {
    const path = `${zone.root}${sep}${file.split("/").join(sep)}`;
    const stat = lstat(path);
    if (!stat) problems.push(`${path} is missing`);
    else if (stat.isSymbolicLink) problems.push(`${path} is a symlink, not the file the build wrote`);
    else if (!stat.isFile) problems.push(`${path} is not a file`);
    else if (stat.size !== entry.size) {
      problems.push(
        stat.size === 0 ? `${path} is empty` : `${path} has ${stat.size} bytes, the build wrote ${entry.size}`,
      );
    }
  }
  return problems;
}

/** The message printed before exiting 1. */
export function refusalMessage(problems: readonly string[]): string {
  return [
    "pi-rails: refusing to start pi: this installation of @pi-rails/pi is not the one that was built.",
    ...problems.map((problem) => `  ${problem}`),
    "Running it could run pi without the pi-rails patch. Reinstall it: npm install -g @pi-rails/pi",
    "(in a pi-rails checkout: pnpm install && pnpm --filter @pi-rails/pi build)",
  ].join("\n");
}
