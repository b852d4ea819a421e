/**
 * @pi-rails/pi: the pi coding agent with the pi-rails patch. The package is mostly its `pi` command; these exports
 * are the pieces of the launcher that tools (and the tests) use to inspect an install.
 */
export { minimumNode, nodeTooOld, versionLine } from "./argv.ts";
export { findPackageDir, packageVersion } from "./locate.ts";
export { type FileEntry, type PatchManifest, parseManifest } from "./manifest.ts";
export { globalNpmPrefix, isNewer, PACKAGE_NAME, selfUpdateCommand } from "./self-update.ts";
export {
  checkFile,
  checkLayout,
  checkResolution,
  type FileStat,
  refusalMessage,
  sha256,
  type Zone,
  zoneOf,
} from "./verify.ts";
