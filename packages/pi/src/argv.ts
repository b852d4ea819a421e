/**
 * The launcher's own words. Which arguments print the version, update pi or fail is decided by pi's own argument
 * parsers (the bundle hands `--version` and pi's self-update to the launcher at the point where pi acts on them),
 * so `pi -x --version` fails as in pi and `pi install x -v` installs.
 */

/** The one line `pi --version` prints: upstream first, as stock pi prints it, then the patch. */
export function versionLine(upstreamVersion: string, piRailsVersion: string, patched: boolean): string {
  return patched
    ? `${upstreamVersion} (pi-rails ${piRailsVersion}: @pi-rails/pi, patched @earendil-works/pi-coding-agent)`
    : `${upstreamVersion} (pi-rails ${piRailsVersion}: @pi-rails/pi, UNPATCHED @earendil-works/pi-coding-agent: built in a checkout without the patch)`;
}

/** The required Node version, from an engines range of the form ">=X.Y" (or ">=X.Y.Z"). */
export function minimumNode(range: string): [number, number, number] {
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!match) throw new Error(`unsupported engines range ${JSON.stringify(range)}`);
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

/** The one line for a Node that is too old, or undefined when `version` (e.g. "20.20.0") satisfies `range`. */
export function nodeTooOld(version: string, range: string): string | undefined {
  const want = minimumNode(range);
  const have = version
    .replace(/^v/, "")
    .split(".")
    .map((part) => Number.parseInt(part, 10) || 0);
  for (let index = 0; index < 3; index++) {
    const a = have[index] ?? 0;
    const b = want[index] as number;
    if (a !== b) return a > b ? undefined : message(version, range);
  }
  return undefined;
}

const message = (version: string, range: string) =>
  `pi-rails: @pi-rails/pi needs Node.js ${range.replace(/\s+/g, "")} (pi 1.6 does); this is Node.js ${version.replace(/^v/, "")}.`;
