import { capValue, countLines, firstLines, fitList, truncateTail } from "./caps.js";
import { resultText } from "./default-view.js";
/** `bash`: the command capped, the output's tail kept (errors and summaries come last). */
export const bashView = (input, caps) => {
    const text = input.resultText;
    const result = text.startsWith("ref:")
        ? text
        : `${truncateTail(text, Math.max(16, caps.maxTextChars - 16))} (lines=${countLines(text)})`;
    return {
        params: capValue(input.args, caps),
        result: text.length <= caps.maxTextChars ? text : result,
    };
};
/** `grep`: how many matches and in which files (first `maxListItems`), fitted into `maxTextChars`. */
export const grepView = (input, caps) => {
    const params = capValue(input.args, caps);
    if (input.isError)
        return { params, result: resultText(input.resultText, caps.maxTextChars) };
    const matches = countLines(input.resultText);
    const files = [];
    const seen = new Set();
    // Files of the first matches only: a summary needs a few names, not a scan of a huge output.
    for (const line of firstLines(input.resultText, caps.maxListItems * 20)) {
        const m = /^(.+?)[:-]\d+[:-]/.exec(line);
        const file = m?.[1];
        if (file && !seen.has(file)) {
            seen.add(file);
            files.push(file);
        }
    }
    const listed = files.slice(0, caps.maxListItems);
    const result = fitList(listed, caps.maxTextChars, (kept, dropped) => JSON.stringify({ matches, files: kept, more_files: files.length - listed.length + dropped }));
    return { params, result };
};
/** `find` / `ls`: how many entries and the first `maxListItems`, fitted into `maxTextChars`. */
export const listingView = (input, caps) => {
    const params = capValue(input.args, caps);
    if (input.isError)
        return { params, result: resultText(input.resultText, caps.maxTextChars) };
    const entries = countLines(input.resultText);
    const listed = firstLines(input.resultText, caps.maxListItems);
    const result = fitList(listed, caps.maxTextChars, (kept, dropped) => JSON.stringify({ entries, first: kept, more: entries - listed.length + dropped }));
    return { params, result };
};
//# sourceMappingURL=search-views.js.map