import { type ToolViewFn } from "./tool-view.ts";
/** `read`: the file body becomes `[TRUNCATED FILE] path=… lines=… chars=…`; errors keep their text. */
export declare const readView: ToolViewFn;
/** `write`: the written content is a file marker in the parameters; the short result is kept (capped). */
export declare const writeView: ToolViewFn;
/** `edit`: old/new texts capped per field (they are usually small), the diff result cut to `maxTextChars`. */
export declare const editView: ToolViewFn;
//# sourceMappingURL=file-views.d.ts.map