const USAGE = "usage: /cache-ttl [pin|unpin <id | path glob | tool:name>]";
/** Parse the command line; an 8-hex-digit word (with an optional `.N`) is a block id, `tool:x` a tool name, anything else a path glob. */
export function parsePinCommand(args) {
    const words = args.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0)
        return { kind: "status" };
    const [verb, ...rest] = words;
    if (verb !== "pin" && verb !== "unpin")
        return { kind: "error", message: USAGE };
    if (rest.length !== 1)
        return { kind: "error", message: USAGE };
    const target = rest[0];
    if (/^[0-9a-f]{8}(\.[0-9]+)?$/.test(target))
        return { kind: verb, target: { ids: [target] }, label: `block ${target}` };
    if (target.startsWith("tool:") && target.length > 5) {
        return { kind: verb, target: { tools: [target.slice(5)] }, label: `tool ${target.slice(5)}` };
    }
    return { kind: verb, target: { paths: [target] }, label: `paths matching ${target}` };
}
//# sourceMappingURL=pin-command.js.map