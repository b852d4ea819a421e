/** Pins from settings and from `/cache-ttl pin`, merged. */
export interface PinSet {
    ids: ReadonlySet<string>;
    tools: ReadonlySet<string>;
    paths: readonly string[];
}
/** The path a tool call works on, when it names one. */
export declare function pathArgument(args: Record<string, unknown>): string | undefined;
/** Whether a tool block is pinned: by id, by tool name, or by a path glob (absolute paths also tried cwd-relative). */
export declare function isToolPinned(pins: PinSet, id: string, tool: string, args: Record<string, unknown>, cwd?: string): boolean;
//# sourceMappingURL=pins.d.ts.map