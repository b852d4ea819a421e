/**
 * The length of `JSON.stringify(value)`, measured without building it, up to `limit`: past that, some number
 * greater than `limit` (the walk stops there). Deciding whether a tool call is worth pruning only needs to know
 * whether its arguments are short; serialising a written file's content to learn that it is long would allocate
 * the whole file again on every pass. Values that are not plain JSON data (a `toJSON`, a class instance) are
 * measured by serialising them.
 */
export declare function jsonLength(value: unknown, limit?: number): number;
//# sourceMappingURL=json-length.d.ts.map