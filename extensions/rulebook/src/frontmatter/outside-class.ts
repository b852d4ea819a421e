/**
 * Visits each character of a regex or a glob that is neither escaped (`\x`) nor inside a `[...]` class, so that a
 * scanner for groups, braces or extglobs needs no escape or class handling of its own. `visit` may return how many
 * further characters it consumed (a two-character token), or `"stop"`. Returns whether a class was left open.
 * The one such walker of rulebook's glob checks, its empty-text check of conditions and pi-ttsr's inline-flag parser.
 */
export function forEachOutsideClass(
  text: string,
  visit: (ch: string, index: number) => number | "stop" | undefined,
): boolean {
  let inClass = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "\\") i++;
    else if (inClass) inClass = ch !== "]";
    else if (ch === "[") inClass = true;
    else {
      const step = visit(ch, i);
      if (step === "stop") return false;
      i += step ?? 0;
    }
  }
  return inClass;
}
