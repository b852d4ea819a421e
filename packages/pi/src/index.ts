/**
 * @pi-rails/pi: the pi coding agent with the pi-rails patch. The package is mostly its `pi` command; these exports
 * are the pieces of the launcher that tools (and the tests) use to inspect an install.
 */
export { planUpdate, type UpdatePlan, versionLine, wantsVersion } from "./argv.ts";
export { findPackageDir, locateUpstream, packageVersion } from "./locate.ts";
export { type PatchedFile, type PatchManifest, parseManifest } from "./manifest.ts";
export { globalNpmPrefix, isNewer, PACKAGE_NAME, selfUpdateCommand } from "./self-update.ts";
export { checkUpstream, type Mismatch, mismatchMessage, sha256, type UpstreamState } from "./verify.ts";
