import { capValue, countLines, firstLines, fitList, truncateTail } from "./caps.ts";
import { resultText } from "./default-view.ts";
import type { ToolViewFn } from "./tool-view.ts";

/** `bash`: the command capped, the output's tail kept (errors and summaries come last). */
export const bashView: ToolViewFn = (input, caps) => {
  const text = input.resultText;
  const result = text.startsWith("ref:")
    ? text
    : `${truncateTail(text, Math.max(16, caps.maxTextChars - 16))} (lines=${countLines(text)})`;
  return {
    params: capValue(input.args, caps) as Record<string, unknown>,
    result: text.length <= caps.maxTextChars ? text : result,
  };
};

/** `grep`: how many matches and in which files (first `maxListItems`), fitted into `maxTextChars`. */
export const grepView: ToolViewFn = (input, caps) => {
  const params = capValue(input.args, caps) as Record<string, unknown>;
  if (input.isError) return { params, result: resultText(input.resultText, caps.maxTextChars) };
  const matches = countLines(input.resultText);
  const files: string[] = [];
  const seen = new Set<string>();
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
  const result = fitList(listed, caps.maxTextChars, (kept, dropped) =>
    JSON.stringify({ matches, files: kept, more_files: files.length - listed.length + dropped }),
  );
  return { params, result };
};

/** `find` / `ls`: how many entries and the first `maxListItems`, fitted into `maxTextChars`. */
export const listingView: ToolViewFn = (input, caps) => {
  const params = capValue(input.args, caps) as Record<string, unknown>;
  if (input.isError) return { params, result: resultText(input.resultText, caps.maxTextChars) };
  const entries = countLines(input.resultText);
  const listed = firstLines(input.resultText, caps.maxListItems);
  const result = fitList(listed, caps.maxTextChars, (kept, dropped) =>
    JSON.stringify({ entries, first: kept, more: entries - listed.length + dropped }),
  );
  return { params, result };
};
