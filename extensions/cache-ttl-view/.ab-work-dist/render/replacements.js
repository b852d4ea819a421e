import { partsOf, textOf, } from "../model/messages.js";
import { toolCallOf } from "../plan/analysis.js";
import { CUT, flat, truncateText } from "../views/caps.js";
import { renderToolView } from "../views/index.js";
const NO_IMAGES = [];
/** `[TRUNCATED] id=… chars=…: <start>...` within `max` chars. */
export function textMarker(id, text, max) {
    const head = `[TRUNCATED] id=${id} chars=${text.length}: `;
    const room = Math.max(0, max - head.length - CUT.length);
    return text.length <= room ? `${head}${text}` : `${head}${text.slice(0, room)}${CUT}`;
}
/** `[TRUNCATED FILE] id=… mime=… base64=…` for an image. */
export function imageMarker(id, image) {
    return `[TRUNCATED FILE] id=${id} mime=${image.mimeType} base64=${image.data.length}`;
}
/**
 * The visible prose of a message that a text block covers. An assistant's thinking is not prose: it is dropped
 * whole when the block is pruned and never shown (or restored) as text.
 */
export function proseOf(m) {
    if (m.role === "assistant") {
        let out = "";
        for (const part of m.content) {
            const t = part.type === "text" ? part.text : undefined;
            if (typeof t === "string" && t !== "")
                out += out ? `\n${t}` : t;
        }
        return out;
    }
    if (m.role === "bashExecution")
        return m.output ?? "";
    const content = m.content;
    if (typeof content === "string")
        return content;
    return Array.isArray(content) ? textOf(content) : "";
}
/** Chars of an assistant message's thinking parts (text and signature: both go on the wire). */
export function reasoningChars(m) {
    let n = 0;
    for (const part of m.content) {
        if (part.type !== "thinking")
            continue;
        n += typeof part.thinking === "string" ? part.thinking.length : 0;
        const signature = part.thinkingSignature;
        if (typeof signature === "string")
            n += signature.length;
    }
    return n;
}
/** Build the replacement of one block (deterministic: same input and caps, same bytes). */
export function replacementFor(messages, block, caps) {
    if (block.kind === "tool") {
        const call = toolCallOf(messages, block);
        const result = block.resultMsg >= 0 ? messages[block.resultMsg] : undefined;
        const parts = result ? result.content : [];
        const resultText = textOf(parts);
        const args = call.arguments && typeof call.arguments === "object" ? call.arguments : {};
        const argsJson = JSON.stringify(args);
        const view = renderToolView({
            tool: call.name,
            callId: call.id,
            id: block.id,
            args,
            resultText,
            // Images of the result are blocks of their own (the image budget decides them): not counted here.
            images: NO_IMAGES,
            isError: result?.isError === true,
            hasResult: result !== undefined,
        }, caps, argsJson);
        const origChars = argsJson.length + resultText.length;
        const newChars = view.argsJson.length + view.summary.length;
        let longestArg = 0;
        for (const key in args) {
            const value = Object.hasOwn(args, key) ? args[key] : undefined;
            if (typeof value === "string" && value.length > longestArg)
                longestArg = value.length;
        }
        const heavyChars = Math.max(resultText.length, longestArg);
        return { kind: "tool", args: view.args, summary: view.summary, origChars, newChars, heavyChars };
    }
    const m = messages[block.msg];
    if (block.kind === "image") {
        const image = partsOf(m.content)[block.part];
        const text = imageMarker(block.id, image);
        return { kind: "image", text, origChars: image.data.length, newChars: text.length };
    }
    const prose = proseOf(m);
    if (m.role === "assistant") {
        // Short text stays as it is (empty marker); thinking goes whole either way.
        const text = prose.length > caps.maxTextChars ? flat(textMarker(block.id, prose, caps.maxTextChars)) : "";
        const reasoning = reasoningChars(m);
        const origChars = prose.length + reasoning;
        const newChars = text ? text.length : prose.length;
        return { kind: "text", text, origChars, newChars, ...(reasoning > 0 ? { reasoningChars: reasoning } : {}) };
    }
    const text = flat(textMarker(block.id, prose, caps.maxTextChars));
    if (m.role === "bashExecution") {
        const command = truncateText(m.command, caps.maxFieldChars);
        const orig = m.command.length + prose.length;
        return { kind: "text", text, command, origChars: orig, newChars: text.length + command.length };
    }
    return { kind: "text", text, origChars: prose.length, newChars: text.length };
}
//# sourceMappingURL=replacements.js.map