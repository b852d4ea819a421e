import { jsonLength } from "../model/json.js";
import { imageTokens, textTokens, thinkingBilled } from "../model/tokens.js";
import { windowOf } from "../turns/turns.js";
import { messageOf, toolCallOf } from "./analysis.js";
import { isToolPinned } from "./pins.js";
/**
 * A cheap test that a block's replacement cannot be smaller than the block (so it need not be built): prose that
 * fits `maxTextChars`, a tool call whose arguments and result are shorter than a summary's fixed part.
 */
export function cannotShrink(messages, block, caps) {
    if (block.kind === "image")
        return false;
    if (block.kind === "text") {
        const m = messages[block.msg];
        if (m.role === "bashExecution")
            return false;
        if (block.reasoning) {
            // Dropping the thinking shrinks it, unless nothing would be left to send (an empty assistant message).
            return !m.content.some((part) => part.type === "toolCall" || (part.type === "text" && part.text.trim() !== ""));
        }
        let n = 0;
        const content = m.content;
        if (typeof content === "string")
            n = content.length;
        else if (Array.isArray(content)) {
            for (const part of content) {
                if (typeof part.text === "string")
                    n += part.text.length + 1;
                else if (typeof part.thinking === "string")
                    n += part.thinking.length + 1;
            }
        }
        return n <= caps.maxTextChars;
    }
    const call = toolCallOf(messages, block);
    const result = block.resultMsg >= 0 ? messages[block.resultMsg] : undefined;
    // Images of the result are blocks of their own: only its text counts here.
    let n = 0;
    for (const part of result?.content ?? [])
        if (part.type === "text")
            n += part.text.length;
    // A result longer than a marker is usually cut: build it rather than serialise the arguments twice.
    if (n > caps.maxTextChars)
        return false;
    const fixed = 64 + call.name.length + call.id.length;
    // Both answers below need short arguments: they are measured only that far (never a written file's whole text).
    const args = jsonLength(call.arguments ?? {}, Math.max(fixed - n, call.name === "write" ? 0 : caps.maxFieldChars));
    if (n + args <= fixed)
        return true;
    // A summary repeats the arguments next to the call's own: with nothing in them to cap (the whole JSON within
    // maxFieldChars) and a result no longer than that, the pair cannot get smaller. `write` swaps its content for a
    // marker, so it is always built.
    return call.name !== "write" && args <= caps.maxFieldChars && n <= args + fixed;
}
function imagePart(messages, block) {
    const content = messages[block.msg].content;
    return Array.isArray(content) ? content[block.part] : undefined;
}
function pinned(input, block) {
    if (input.pins.ids.size > 0 && input.pins.ids.has(block.id))
        return true;
    if (block.kind !== "tool" || (input.pins.tools.size === 0 && input.pins.paths.length === 0))
        return false;
    const call = toolCallOf(input.messages, block);
    const args = call.arguments && typeof call.arguments === "object" ? call.arguments : {};
    return isToolPinned(input.pins, block.id, block.tool, args, input.cwd);
}
/**
 * Which blocks to prune now that the cache has expired. Older than `keepRecentTurns`: every tool and text block
 * whose replacement is smaller. Between the windows: only heavy tool blocks (more than `maxBase64Chars`). The last
 * `keepRecentIntactTurns` turns: nothing. Images anywhere outside the intact window: newest first, kept while
 * within `keepRecentImages` and `maxImageBase64Total`, the newest always kept.
 */
export function planPrune(input) {
    const { analysis, settings } = input;
    const plan = { ids: [], blocks: [], savedChars: 0, savedTokens: 0, counts: { tool: 0, text: 0, image: 0 } };
    // Tokens: text at 4 chars per token; images at what the API bills for them; old thinking only where billed.
    let textChars = 0;
    let imageSaved = 0;
    const billed = thinkingBilled(input.api);
    const take = (block, r) => {
        plan.ids.push(block.id);
        plan.blocks.push(block);
        plan.savedChars += r.origChars - r.newChars;
        plan.counts[block.kind]++;
        if (block.kind === "image") {
            const part = imagePart(input.messages, block);
            imageSaved += Math.max(0, (part ? imageTokens(part, input.api) : 0) - textTokens(r.newChars));
        }
        else {
            const unbilled = r.kind === "text" && !billed ? (r.reasoningChars ?? 0) : 0;
            textChars += r.origChars - unbilled - r.newChars;
        }
    };
    for (let b = 0; b < analysis.blocks.length; b++) {
        const block = analysis.blocks[b];
        if (block.kind === "image" || (input.pruned.size > 0 && input.pruned.has(block.id)))
            continue;
        const window = windowOf(analysis.ageOf(messageOf(block)), settings);
        if (window === "intact")
            continue;
        if (window === "cold" && block.kind === "text")
            continue;
        if (pinned(input, block))
            continue;
        if (cannotShrink(input.messages, block, settings))
            continue;
        const r = input.replacement(block);
        if (r.newChars >= r.origChars)
            continue;
        if (window === "cold" && (r.kind !== "tool" || (r.heavyChars ?? 0) <= settings.maxBase64Chars))
            continue;
        take(block, r);
    }
    // Images, newest first, wherever they are (a prompt, a tool result, pruned or not): the newest is always kept,
    // and so are images of the intact window and of pinned tools; the rest are kept while the budget allows.
    let kept = 0;
    let keptChars = 0;
    for (let b = analysis.blocks.length - 1; b >= 0; b--) {
        const block = analysis.blocks[b];
        if (block.kind !== "image" || input.pruned.has(block.id))
            continue;
        const ownerIndex = analysis.resultTool[block.msg];
        const owner = ownerIndex >= 0 ? analysis.blocks[ownerIndex] : undefined;
        const intact = windowOf(analysis.ageOf(messageOf(block)), settings) === "intact";
        const fits = kept < settings.keepRecentImages && keptChars + block.chars <= settings.maxImageBase64Total;
        if (intact || kept === 0 || fits || pinned(input, block) || (owner !== undefined && pinned(input, owner))) {
            kept++;
            keptChars += block.chars;
            continue;
        }
        const r = input.replacement(block);
        if (r.newChars < r.origChars)
            take(block, r);
    }
    plan.savedTokens = Math.max(0, textTokens(Math.max(0, textChars)) + imageSaved);
    if (plan.ids.length > 0 && plan.savedTokens < settings.minGainTokens) {
        return {
            ...plan,
            ids: [],
            blocks: [],
            savedChars: 0,
            savedTokens: 0,
            counts: { tool: 0, text: 0, image: 0 },
            belowMinGain: true,
        };
    }
    return plan;
}
//# sourceMappingURL=plan.js.map