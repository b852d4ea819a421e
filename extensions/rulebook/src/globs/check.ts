/**
 * Checking one glob from a rule file before it is used: globs that can never match, that are too
 * long for the matcher, or that expand to too many patterns are the common ways a rule silently
 * never applies (or stalls a run). Obvious intent is normalised with a note; the rest is reported.
 */

import { forEachOutsideClass } from "../frontmatter/outside-class.ts";

/** Longer globs are dropped (minimatch refuses 64 KiB; nobody writes a real glob this long). */
export const MAX_GLOB_CHARS = 4096;
/** A glob whose brace sets expand to more patterns than this is dropped (`{a,b}{c,d}...` grows as a product). */
export const MAX_GLOB_EXPANSIONS = 256;

export type GlobIssueKind = "glob-normalized" | "glob-unmatchable" | "glob-too-long" | "glob-combinatorial";

export interface GlobCheck {
  /** The glob to use (normalised when `note` is set); absent when the glob is dropped. */
  glob?: string;
  issue?: { kind: GlobIssueKind; message: string };
}

/** File extensions common enough that a bare `java` or `[java]` in a globs list means `**\/*.java`. */
const EXTENSIONS = new Set(
  (
    "js jsx mjs cjs ts tsx mts cts py pyi java kt kts scala go rs rb php cs fs c h cc cpp hpp cxx m mm swift dart " +
    "lua ex exs erl hs ml clj vue svelte astro html htm css scss sass less json jsonc yaml yml toml xml md mdx " +
    "sql sh bash zsh ps1 r jl tf hcl proto graphql gql sol zig nim groovy gradle"
  ).split(" "),
);

function show(glob: string): string {
  return JSON.stringify(glob.length > 80 ? `${glob.slice(0, 77)}...` : glob);
}

/** Check one glob (a leading `!` is kept and the rest is checked). */
export function checkGlob(raw: string): GlobCheck {
  if (raw.length > MAX_GLOB_CHARS)
    return issue("glob-too-long", `glob of ${raw.length} characters dropped (limit ${MAX_GLOB_CHARS}): ${show(raw)}`);
  const negated = raw.startsWith("!");
  const body = negated ? raw.slice(1) : raw;
  const bang = negated ? "!" : "";
  // the common case (`src/**/*.ts`): nothing to normalise, nothing to count
  if (!/[{[\\(]|\/$/.test(body) && body.includes("*")) return { glob: raw };
  if (negated && body === "") return unmatchable(raw, 'is a bare "!": it excludes nothing and matches nothing');
  // `src\`: the glob library reads a final lone backslash as a literal one (no Windows path ends that way)
  if (/(?:^|[^\\])(?:\\\\)*\\$/.test(body)) return unmatchable(raw, "ends in a lone backslash");
  const ext = extensionOf(body);
  if (ext) {
    const glob = `${bang}**/*.${ext}`;
    return issue(
      "glob-normalized",
      `glob ${show(raw)} can never match a source file; read as "${glob}" (an extension list)`,
      glob,
    );
  }
  // A Windows path (`src\api\x.ts`, `src\**\*.ts`): no backslash escapes a glob character, or one sits next to
  // `**` (nobody escapes a star right before or after a globstar; `src\**\*.ts` means src/**/*.ts)
  if (body.includes("\\") && (!/\\[*?[\]{}!]/.test(body) || /\\\*\*|\*\*\\/.test(body))) {
    const glob = bang + body.replace(/\\/g, "/");
    return issue("glob-normalized", `glob ${show(raw)} uses backslashes; read as "${glob}"`, glob);
  }
  if (body.endsWith("/") && body.length > 1) {
    const glob = `${bang}${body}**`;
    return issue("glob-normalized", `glob ${show(raw)} names a folder; read as "${glob}"`, glob);
  }
  const unbalanced = unbalancedBracket(body);
  if (unbalanced) return unmatchable(raw, `has an unclosed "${unbalanced}"`);
  const expansions = countExpansions(body, MAX_GLOB_EXPANSIONS);
  if (expansions > MAX_GLOB_EXPANSIONS)
    return issue(
      "glob-combinatorial",
      `glob ${show(raw)} dropped: its brace sets expand to more than ${MAX_GLOB_EXPANSIONS} patterns`,
    );
  return { glob: raw };
}

/**
 * A glob kept as written but reported: the glob library reads it literally, so it can only match that exact text
 * (in practice never). Said once per file and glob, by discovery.
 */
function unmatchable(raw: string, why: string): GlobCheck {
  return issue("glob-unmatchable", `glob ${show(raw)} ${why}, so it only matches that literal text: fix the glob`, raw);
}

/** A check with an issue: `glob` is what to use (kept or normalised), absent when the glob is dropped. */
function issue(kind: GlobIssueKind, message: string, glob?: string): GlobCheck {
  return glob === undefined ? { issue: { kind, message } } : { glob, issue: { kind, message } };
}

/** `.js`, `java`, `[java]` (a Windsurf habit) to the extension, or `undefined` for a real glob. */
function extensionOf(glob: string): string | undefined {
  const marked = /^(?:\.([A-Za-z0-9]{1,10})|\[\.?([A-Za-z0-9]{1,10})\])$/.exec(glob);
  const ext = marked ? (marked[1] ?? marked[2])! : glob;
  // a marked extension in any case (`.JS`), a bare word only as written
  return EXTENSIONS.has(marked ? ext.toLowerCase() : ext) ? ext : undefined;
}

/**
 * The first bracket, brace or extglob (`+(`, `@(`, `?(`, `*(`, `!(`) that is opened and never closed (escapes
 * respected), if any.
 */
function unbalancedBracket(glob: string): string | undefined {
  let braces = 0;
  const extglobs: string[] = [];
  const classOpen = forEachOutsideClass(glob, (ch, i) => {
    if (ch === "{") braces++;
    else if (ch === "}" && braces > 0) braces--;
    else if (glob[i + 1] === "(" && "+@?*!".includes(ch)) {
      extglobs.push(`${ch}(`);
      return 1;
    } else if (ch === ")" && extglobs.length > 0) extglobs.pop();
    return undefined;
  });
  if (classOpen) return "[";
  if (braces > 0) return "{";
  return extglobs[0];
}

/**
 * How many patterns brace expansion makes of `glob` (sets multiply, alternatives add, `{1..9}`
 * ranges count their members), stopping early once over `cap`.
 */
export function countExpansions(glob: string, cap: number): number {
  let i = 0;
  const parseSeq = (): number => {
    let total = 1;
    while (i < glob.length) {
      const ch = glob[i]!;
      if (ch === "\\") {
        i += 2;
        continue;
      }
      if (ch === "}" || ch === ",") return total;
      if (ch === "{") {
        i++;
        const start = i;
        let alternatives = parseSeq();
        let commas = 0;
        while (glob[i] === ",") {
          commas++;
          i++;
          alternatives += parseSeq();
        }
        if (glob[i] === "}") i++;
        const inner = glob.slice(start, i - 1);
        const range = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.-?\d+)?$/.exec(inner);
        const n = range ? rangeSize(range[1]!, range[2]!) : commas ? alternatives : 1;
        total = Math.min(total * n, cap + 1);
        continue;
      }
      i++;
    }
    return total;
  };
  let total = 1;
  while (i < glob.length) {
    total = Math.min(total * parseSeq(), cap + 1);
    if (i < glob.length) i++; // a stray `}` or `,` at top level is literal
  }
  return total;
}

function rangeSize(a: string, b: string): number {
  const x = Number.isNaN(Number(a)) ? a.charCodeAt(0) : Number(a);
  const y = Number.isNaN(Number(b)) ? b.charCodeAt(0) : Number(b);
  return Math.abs(y - x) + 1;
}

/**
 * How specific a glob is: its literal characters (wildcards, classes and brace sets removed), so
 * `src/api/**` ranks above `**\/*.ts`. Used to order auto-attached rules.
 */
export function globSpecificity(glob: string): number {
  return glob
    .replace(/^!/, "")
    .replace(/\*\*|[*?]|\[[^\]]*\]|\{[^}]*\}/g, "")
    .replace(/\/+/g, "/").length;
}
