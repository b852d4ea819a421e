import { readSessionEntries } from "@pi-rails/agent-core/kit";
import { SessionContextBuilder } from "../model/session-context.js";
import { STATE_ENTRY } from "../state/entries.js";
/** The entries of the current branch: from the last entry back to the root through `parentId`. */
function branchOf(entries) {
    const byId = new Map();
    for (const e of entries)
        if (typeof e.id === "string")
            byId.set(e.id, e);
    const out = [];
    let cur = entries[entries.length - 1];
    const seen = new Set();
    while (cur && typeof cur.id === "string" && !seen.has(cur.id)) {
        seen.add(cur.id);
        out.push(cur);
        cur = typeof cur.parentId === "string" ? byId.get(cur.parentId) : undefined;
    }
    return out.reverse();
}
/**
 * Parse a pi session file (JSONL) into the requests pi made: every assistant message is one request whose context
 * is the messages before it on the branch (compactions replace what they summarised, as pi does). Lines that are
 * not JSON are skipped like pi skips them (their numbers are returned); a file with nothing of a session is an error.
 */
export function parseSessionFile(text, file = "session") {
    const entries = [];
    let cwd;
    const skippedLines = [];
    for (const [n, line] of text.split("\n").entries()) {
        if (line.trim() === "")
            continue;
        let value;
        try {
            value = JSON.parse(line);
        }
        catch {
            skippedLines.push(n + 1);
            continue;
        }
        if (typeof value !== "object" || value === null)
            continue;
        const e = value;
        if (e.type === "session")
            cwd = typeof e["cwd"] === "string" ? e["cwd"] : undefined;
        else
            entries.push(e);
    }
    if (entries.length === 0 && cwd === undefined) {
        throw new Error(`${file}: not a pi session file (no session header and no entries)`);
    }
    const requests = [];
    const context = new SessionContextBuilder();
    let stateEntries = [];
    for (const e of branchOf(entries)) {
        if (e.type === "custom") {
            stateEntries.push(...readSessionEntries([e], STATE_ENTRY));
            continue;
        }
        const message = e.type === "message" ? e["message"] : undefined;
        if (message?.role === "assistant") {
            const usage = message["usage"];
            requests.push({
                at: typeof message.timestamp === "number" ? message.timestamp : Date.parse(String(e["timestamp"])),
                context: context.messages(),
                ...(typeof message["provider"] === "string" ? { provider: message["provider"] } : {}),
                ...(typeof message["model"] === "string" ? { model: message["model"] } : {}),
                ...(typeof message["api"] === "string" ? { api: message["api"] } : {}),
                ...(usage ? { usage } : {}),
                stateEntries,
            });
            stateEntries = [];
        }
        context.add(e);
    }
    return { ...(cwd !== undefined ? { cwd } : {}), requests, skippedLines };
}
//# sourceMappingURL=session-file.js.map