import { findMessageKeys } from "../model/ids.js";
import { blocksOf, reasoningDropped, touches } from "./analysis.js";
/** Custom message type of the prune notice in the model's view. */
export const NOTICE_TYPE = "cache_ttl_pruned";
/** The notice as a pi custom message (pi sends custom messages to the model as user text). */
export function noticeMessage(notice) {
    return { role: "custom", customType: NOTICE_TYPE, content: notice.text, display: true, timestamp: notice.at };
}
/** Indexes of the image parts of a content array (to map a filtered list back to part numbers). */
function imagePartIndexes(parts) {
    const out = [];
    for (let p = 0; p < parts.length; p++)
        if (parts[p].type === "image")
            out.push(p);
    return out;
}
function replaceContentParts(parts, blocks, pruned, replacement, partIndexes) {
    const out = [];
    const text = blocks.find((b) => b.kind === "text" && pruned.has(b.id));
    let textDone = false;
    for (let p = 0; p < parts.length; p++) {
        const part = parts[p];
        if (part.type === "image") {
            const at = partIndexes ? partIndexes[p] : p;
            const image = blocks.find((b) => b.kind === "image" && b.part === at);
            if (image && pruned.has(image.id))
                out.push({ type: "text", text: replacement(image).text });
            else
                out.push(part);
        }
        else if (text) {
            if (!textDone)
                out.push({ type: "text", text: replacement(text).text });
            textDone = true;
        }
        else
            out.push(part);
    }
    return out;
}
/** A tool call id without the provider's item id (`call_…|fc_…` from OpenAI Responses becomes `call_…`). */
export function withoutItemId(id) {
    const bar = id.indexOf("|");
    return bar === -1 ? id : id.slice(0, bar);
}
/**
 * The pruned view of an assistant message. Its thinking parts are dropped whole (a signed block is never edited,
 * and reasoning never comes back as visible text); its text becomes one marker, or stays as it was (without
 * provider signatures) when it is short. A tool call whose reasoning item was dropped loses its provider item id:
 * OpenAI Responses rejects an `fc_…` function call without the reasoning item it came with.
 */
function renderAssistant(a, index, blocks, pruned, replacement) {
    const text = blocks.find((b) => b.kind === "text" && pruned.has(b.id));
    const dropReasoning = text?.kind === "text" && text.reasoning === true;
    const content = [];
    const marker = text ? replacement(text).text : "";
    if (marker)
        content.push({ type: "text", text: marker });
    for (let p = 0; p < a.content.length; p++) {
        const part = a.content[p];
        if (part.type === "thinking") {
            if (!text)
                content.push(part);
            continue;
        }
        if (part.type === "text") {
            if (!text)
                content.push(part);
            else if (!marker && part.text.trim() !== "")
                content.push({ type: "text", text: part.text });
            continue;
        }
        if (part.type !== "toolCall") {
            if (!text)
                content.push(part);
            continue;
        }
        let call = part;
        const tool = blocks.find((b) => b.kind === "tool" && b.callMsg === index && b.callPart === p);
        if (tool && pruned.has(tool.id)) {
            // New arguments: a signature over the old call (Gemini's thoughtSignature) no longer belongs to it.
            const r = replacement(tool);
            const { thoughtSignature: _signature, ...rest } = call;
            call = { ...rest, arguments: r.args };
        }
        if (dropReasoning && withoutItemId(call.id) !== call.id)
            call = { ...call, id: withoutItemId(call.id) };
        content.push(call);
    }
    return { ...a, content };
}
/** The view of one message given the pruned set, or the message itself when nothing in it is pruned. */
export function renderMessage(messages, analysis, index, pruned, replacement) {
    const m = messages[index];
    if (!touches(analysis, index, pruned))
        return m;
    return renderTouched(messages, analysis, index, pruned, replacement);
}
/** `renderMessage` for a message known to be touched by the pruned set. */
function renderTouched(messages, analysis, index, pruned, replacement) {
    const m = messages[index];
    const blocks = blocksOf(analysis, index);
    switch (m.role) {
        case "assistant":
            return renderAssistant(m, index, blocks, pruned, replacement);
        case "toolResult": {
            const t = m;
            const tool = blocks.find((b) => b.kind === "tool" && b.resultMsg === index);
            const toolCallId = tool !== undefined && reasoningDropped(analysis, tool.callMsg, pruned)
                ? withoutItemId(t.toolCallId)
                : t.toolCallId;
            if (tool && pruned.has(tool.id)) {
                // The summary replaces the text; images stay (or become markers) under the image budget.
                const r = replacement(tool);
                const content = [{ type: "text", text: r.summary }];
                if (blocks.length > 1) {
                    const indexes = imagePartIndexes(t.content);
                    const images = indexes.map((p) => t.content[p]);
                    content.push(...replaceContentParts(images, blocks, pruned, replacement, indexes));
                }
                return { ...t, toolCallId, content };
            }
            const content = replaceContentParts(t.content, blocks, pruned, replacement);
            return { ...t, toolCallId, content };
        }
        case "user":
        case "custom": {
            const u = m;
            if (typeof u.content === "string") {
                return { ...u, content: replacement(blocks[0]).text };
            }
            return { ...u, content: replaceContentParts(u.content, blocks, pruned, replacement) };
        }
        case "bashExecution": {
            const r = replacement(blocks[0]);
            return { ...m, command: r.command ?? m.command, output: r.text };
        }
        default:
            return m;
    }
}
/** Compute the patch that turns `messages` into the model's view. */
export function patchFor(messages, analysis, pruned, notices, replacement) {
    const replaced = [];
    if (pruned.size > 0) {
        for (let index = 0; index < messages.length; index++) {
            if (!touches(analysis, index, pruned))
                continue;
            const view = renderTouched(messages, analysis, index, pruned, replacement);
            if (view !== messages[index])
                replaced.push([index, view]);
        }
    }
    const inserts = [];
    if (notices.length > 0) {
        // Only the anchors are looked up (a map of every message key would cost as much as the analysis).
        const at = findMessageKeys(messages, new Set(notices.map((n) => n.after)));
        for (const notice of notices) {
            const index = at.get(notice.after);
            if (index !== undefined)
                inserts.push([index, noticeMessage(notice)]);
        }
        inserts.sort((a, b) => a[0] - b[0]);
    }
    return { replaced, inserts };
}
/** Apply a patch to a (mutable, pi-cloned) message array, in place; returns it. */
export function applyPatch(messages, patch) {
    for (const [index, view] of patch.replaced)
        messages[index] = view;
    for (let k = patch.inserts.length - 1; k >= 0; k--) {
        const [after, notice] = patch.inserts[k];
        messages.splice(after + 1, 0, notice);
    }
    return messages;
}
//# sourceMappingURL=render.js.map