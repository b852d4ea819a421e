/**
 * Field-aware truncation shared by every tool view. Strings starting with `ref:` are references the model may need
 * to quote exactly, so they are never cut; everything else is capped per string, list and object.
 */
export interface Caps {
    maxTextChars: number;
    maxFieldChars: number;
    maxListItems: number;
    maxDictKeys: number;
}
/** The caps of a settings object (what a prune entry stores, so its replacements never change afterwards). */
export declare function capsOf(settings: Caps): Caps;
/**
 * Where a text was cut. ASCII on purpose: one non-ASCII char (`…`) makes V8 store the whole replacement, and every
 * string joined from it, two bytes per char; a cold pass over a long session builds tens of thousands of them.
 */
export declare const CUT = "...";
/**
 * A text joined from pieces (a V8 cons-string tree) as one flat string (charCodeAt flattens): one object to keep,
 * which the collector copies once instead of a tree.
 */
export declare function flat(s: string): string;
/** `[TRUNCATED] <prefix>...`, at most `max` chars; text that fits is returned as is. */
export declare function truncateText(text: string, max: number): string;
/** `[TRUNCATED] ...<suffix>`: the end of a text, for outputs whose last lines matter (bash). */
export declare function truncateTail(text: string, max: number): string;
/**
 * Cap a JSON-like value: strings to `maxFieldChars` (except `ref:`), lists and objects to their item caps. A value
 * that needs no cut is returned as is (same reference), so the common case allocates nothing.
 */
export declare function capValue(value: unknown, caps: Caps, depth?: number): unknown;
/** Number of lines of a text (a trailing newline does not start a line); counts without splitting. */
export declare function countLines(text: string): number;
/** The first `max` lines of a text (without splitting the rest). */
export declare function firstLines(text: string, max: number): string[];
/** Shrink a list until `render(list)` fits `max` chars (at least one item is dropped per step). */
export declare function fitList<T>(items: T[], max: number, render: (kept: T[], dropped: number) => string): string;
//# sourceMappingURL=caps.d.ts.map