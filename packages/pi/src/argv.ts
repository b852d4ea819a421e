/**
 * Decisions about the command line that the launcher takes before handing over to pi: pure, so the rules for
 * `--version` and `update` are unit-tested against pi's own grammar.
 */

/** pi's package commands: their flags are theirs, never the global `--version`. */
const PACKAGE_COMMANDS = new Set(["install", "remove", "uninstall", "update", "list", "config"]);

/** True when pi would print its version for these arguments (`--version` / `-v` outside a package command). */
export function wantsVersion(argv: readonly string[]): boolean {
  if (argv[0] !== undefined && PACKAGE_COMMANDS.has(argv[0])) return false;
  return argv.includes("--version") || argv.includes("-v");
}

/** The one line `pi --version` prints: upstream first, as stock pi prints it, then the patch. */
export function versionLine(upstreamVersion: string, piRailsVersion: string): string {
  return `${upstreamVersion} (pi-rails ${piRailsVersion}: @pi-rails/pi, patched @earendil-works/pi-coding-agent)`;
}

export interface UpdatePlan {
  /** Update @pi-rails/pi itself (never stock pi, which is what upstream's self-update would install). */
  self: boolean;
  /** The arguments to hand to pi afterwards, or undefined when pi has nothing left to do. */
  forward: string[] | undefined;
  /** `--force`: reinstall even when the registry has no newer version. */
  force: boolean;
}

/**
 * How `pi update ...` is split: pi updates the extensions as before; the launcher updates itself, because stock
 * pi's self-update installs `@earendil-works/pi-coding-agent` and would take the user off the patched pi. Returns
 * undefined when the arguments are not an update that touches pi itself (they go to pi untouched, and so do help
 * and anything pi would reject, so pi's own messages stay).
 */
export function planUpdate(argv: readonly string[]): UpdatePlan | undefined {
  if (argv[0] !== "update") return undefined;
  const rest = argv.slice(1);
  let self = false;
  let extensions = false;
  let force = false;
  const positional: string[] = [];
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index] as string;
    if (arg === "-h" || arg === "--help" || arg === "--extension" || arg.startsWith("--extension=")) return undefined;
    if (arg === "--self") self = true;
    else if (arg === "--extensions") extensions = true;
    else if (arg === "--force") force = true;
    else if (arg.startsWith("-")) return undefined;
    else positional.push(arg);
  }
  if (positional.length > 1) return undefined;
  const source = positional[0];
  if (source !== undefined) {
    if (source !== "self" && source !== "pi") return undefined; // one extension: pi's business
    self = true;
  }
  if (!self && !extensions) {
    self = true; // bare `pi update`: pi and every extension
    extensions = true;
  }
  if (!self) return undefined;
  const forward = extensions ? ["update", "--extensions", ...(force ? ["--force"] : [])] : undefined;
  return { self, forward, force };
}
