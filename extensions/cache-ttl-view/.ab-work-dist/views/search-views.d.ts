import type { ToolViewFn } from "./tool-view.ts";
/** `bash`: the command capped, the output's tail kept (errors and summaries come last). */
export declare const bashView: ToolViewFn;
/** `grep`: how many matches and in which files (first `maxListItems`), fitted into `maxTextChars`. */
export declare const grepView: ToolViewFn;
/** `find` / `ls`: how many entries and the first `maxListItems`, fitted into `maxTextChars`. */
export declare const listingView: ToolViewFn;
//# sourceMappingURL=search-views.d.ts.map