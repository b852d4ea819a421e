/** Whether JSON.stringify would write something in `s` escaped (a quote, a backslash, a control, a surrogate). */
export declare function needsEscape(s: string): boolean;
/**
 * `JSON.stringify(s)` for a string, without the serialiser when nothing in it needs escaping (Node 20's
 * serialiser costs about a microsecond per 400 chars: a cold pass quotes 30,000 summaries).
 */
export declare function quoteJson(s: string): string;
/**
 * The length of `JSON.stringify(value)`, measured without building it, up to `limit`: past that, some number
 * greater than `limit`. Whether a tool call is worth pruning only needs to know whether its arguments are short;
 * serialising a written file's content to learn that it is long would allocate the whole file on every pass.
 * What is not plain data (a `toJSON`, a class instance) is measured by serialising it.
 */
export declare function jsonLength(value: unknown, limit?: number): number;
//# sourceMappingURL=json.d.ts.map