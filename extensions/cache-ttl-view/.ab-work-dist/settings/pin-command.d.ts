/** `/cache-ttl` arguments: nothing (status), `pin <target>` or `unpin <target>`. */
export type PinCommand = {
    kind: "status";
} | {
    kind: "pin" | "unpin";
    target: {
        ids?: string[];
        paths?: string[];
        tools?: string[];
    };
    label: string;
} | {
    kind: "error";
    message: string;
};
/** Parse the command line; an 8-hex-digit word (with an optional `.N`) is a block id, `tool:x` a tool name, anything else a path glob. */
export declare function parsePinCommand(args: string): PinCommand;
//# sourceMappingURL=pin-command.d.ts.map