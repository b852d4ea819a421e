import { type ToolViewFn } from "./tool-view.ts";
/**
 * Any tool without its own view: parameters capped per field; a JSON result keeps its shape (search hits reduced to
 * `sid`, `url`, `title`, `text`; a fetched page to `url`, `title`, `content`; then capped per field), any other
 * result is cut to `maxTextChars`.
 */
export declare const defaultView: ToolViewFn;
/** The `ref:` values in a text, in order, each once (they are quoted back verbatim, never cut). */
export declare function refsIn(text: string): string[];
/** A result text as a summary value: `ref:` verbatim, else `[TRUNCATED] …` within `max`, plus every `ref:` it held. */
export declare function resultText(text: string, max: number, note?: string): string;
/** Search hits and fetched pages reduced to the fields that identify them; anything else as it is. */
export declare function compactKnownShapes(value: unknown): unknown;
//# sourceMappingURL=default-view.d.ts.map