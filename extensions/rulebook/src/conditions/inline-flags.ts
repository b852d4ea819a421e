/**
 * Inline flag groups (`(?i)`, `(?ms)`) written for PCRE, Python, Go or Rust regexes. JavaScript has no
 * leading flag group, so a rule copied from another tool would fail to compile: a leading group of `i`, `m`
 * and `s` is translated to flags here, and any other inline group is reported by name instead of surfacing
 * as the engine's bare "Invalid group".
 */

import { forEachOutsideClass } from "../frontmatter/outside-class.ts";

/** Inline flags that mean the same as JavaScript's flags of the same letter. */
const TRANSLATABLE = /^[ims]+$/;
const LEADING_GROUP = /^\(\?([A-Za-z]+)\)/;

export type InlineFlagsResult = { ok: true; source: string; flags: string } | { ok: false; error: string };

/** Whether this engine takes modifier groups `(?i:...)` / `(?-i:...)` natively (V8 12.5+: Node 24, not Node 22). */
const MODIFIER_GROUPS = (() => {
  try {
    // A variable source, so the probe stays a runtime check (a literal would be a parse error on Node 22).
    const probe = ["(?i:a)", "(?-i:b)"].join("");
    new RegExp(probe);
    return true;
  } catch {
    return false;
  }
})();

/**
 * Moves a leading `(?i)` / `(?m)` / `(?s)` (or a combination such as `(?im)`) into `flags`, and rejects the
 * inline groups the engine cannot take (one in the middle, `(?x)`, `(?-i)`, `(?i:...)` without engine support,
 * Python's `(?P<name>...)`), naming the group.
 */
export function translateInlineFlags(source: string, flags: string): InlineFlagsResult {
  let rest = source;
  let added = "";
  const leading = LEADING_GROUP.exec(source);
  if (leading && TRANSLATABLE.test(leading[1]!)) {
    added = leading[1]!;
    rest = source.slice(leading[0].length);
  }
  const group = findInlineGroup(rest);
  if (group) {
    const where = group.index === 0 && !added ? "" : " in the middle of the pattern";
    return {
      ok: false,
      error:
        `inline group "${group.text}"${where} is not supported by JavaScript regexes; only a leading ` +
        `(?i), (?m), (?s) or a combination such as (?im) is translated to flags. Use the flags key instead`,
    };
  }
  if (!added) return { ok: true, source, flags };
  return { ok: true, source: rest, flags: [...new Set(flags + added)].sort().join("") };
}

/** The first `(?<letters or ->...` group that is neither a lookaround, a named group nor a non-capturing group. */
function findInlineGroup(source: string): { index: number; text: string } | undefined {
  let found: { index: number; text: string } | undefined;
  forEachOutsideClass(source, (ch, i) => {
    if (ch !== "(" || source[i + 1] !== "?") return undefined;
    const next = source[i + 2] ?? "";
    if (!/[A-Za-z-]/.test(next)) return undefined; // (?: (?= (?! (?<= (?<! (?<name>
    const m = /^\(\?([A-Za-z]*)(?:-([A-Za-z]*))?([):<]?)/.exec(source.slice(i));
    const text = m ? `${m[0]}${m[3] === ":" ? "...)" : m[3] === "<" ? "...>" : ""}` : source.slice(i, i + 4);
    if (MODIFIER_GROUPS && m?.[3] === ":" && /^[ims]*$/.test(m[1] ?? "") && /^[ims]*$/.test(m[2] ?? ""))
      return undefined;
    found = { index: i, text };
    return "stop";
  });
  return found;
}
