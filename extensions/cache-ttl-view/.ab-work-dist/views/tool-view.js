import { countLines } from "./caps.js";
/** A file body: `[TRUNCATED FILE] id=… path=… lines=… chars=…`. */
export function fileMarker(id, path, text, extra = "") {
    const lines = countLines(text);
    const where = typeof path === "string" ? ` path=${path}` : "";
    return `[TRUNCATED FILE] id=${id}${where} lines=${lines} chars=${text.length}${extra}`;
}
/** ` images=image/png:1234` when a result carried images (they are dropped with the result). */
export function imagesNote(images) {
    return images.length === 0 ? "" : ` images=${images.map((i) => `${i.mimeType}:${i.chars}`).join(",")}`;
}
//# sourceMappingURL=tool-view.js.map