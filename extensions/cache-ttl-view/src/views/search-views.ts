import { escapedJson } from "../model/json.ts";
import { capValue, countLines, firstLines, fitList, keptTail, TAIL_MARK } from "./caps.ts";
import { resultText } from "./default-view.ts";
import type { ToolViewFn } from "./tool-view.ts";

/** `bash`: the command capped, the output's tail kept (errors and summaries come last). */
export const bashView: ToolViewFn = (input, caps) => {
  const text = input.resultText;
  const params = capValue(input.args, caps) as Record<string, unknown>;
  if (text.length <= caps.maxTextChars || text.startsWith("ref:")) return { params, result: text };
  const max = Math.max(16, caps.maxTextChars - 16);
  const kept = text.length > max ? keptTail(text, max) : text;
  const mark = kept === text ? "" : TAIL_MARK;
  const lines = input.lines ?? countLines(text);
  // The mark and the line count never need a JSON escape: only the kept end is escaped, as a slice of the output
  // (escaping the joined result would flatten it and copy it once more than the summary does).
  return {
    params,
    result: `${mark}${kept} (lines=${lines})`,
    resultJson: `"${mark}${escapedJson(kept)} (lines=${lines})"`,
    lines,
  };
};

/** `grep`: how many matches and in which files (first `maxListItems`), fitted into `maxTextChars`. */
export const grepView: ToolViewFn = (input, caps) => {
  const params = capValue(input.args, caps) as Record<string, unknown>;
  if (input.isError) return { params, result: resultText(input.resultText, caps.maxTextChars) };
  const matches = input.lines ?? countLines(input.resultText);
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
  return { params, result, lines: matches };
};

/** `find` / `ls`: how many entries and the first `maxListItems`, fitted into `maxTextChars`. */
export const listingView: ToolViewFn = (input, caps) => {
  const params = capValue(input.args, caps) as Record<string, unknown>;
  if (input.isError) return { params, result: resultText(input.resultText, caps.maxTextChars) };
  const entries = input.lines ?? countLines(input.resultText);
  const listed = firstLines(input.resultText, caps.maxListItems);
  const result = fitList(listed, caps.maxTextChars, (kept, dropped) =>
    JSON.stringify({ entries, first: kept, more: entries - listed.length + dropped }),
  );
  return { params, result, lines: entries };
};
