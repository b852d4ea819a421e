/**
 * The length of `JSON.stringify(value)`, measured without building it, up to `limit`: past that, some number
 * greater than `limit` (the walk stops there). Deciding whether a tool call is worth pruning only needs to know
 * whether its arguments are short; serialising a written file's content to learn that it is long would allocate
 * the whole file again on every pass. Values that are not plain JSON data (a `toJSON`, a class instance) are
 * measured by serialising them.
 */
export function jsonLength(value, limit = Number.POSITIVE_INFINITY) {
    const walk = new JsonWalk(limit);
    walk.value(value);
    return walk.n;
}
class JsonWalk {
    n = 0;
    #limit;
    constructor(limit) {
        this.#limit = limit;
    }
    get #over() {
        return this.n > this.#limit;
    }
    /** Adds the length of `value`; returns false when it is left out (undefined, a function, a symbol). */
    value(value) {
        switch (typeof value) {
            case "string":
                this.#string(value);
                return true;
            case "number":
                this.n += Number.isFinite(value) ? String(value).length : 4;
                return true;
            case "boolean":
                this.n += value ? 4 : 5;
                return true;
            case "bigint":
                // JSON.stringify throws on a bigint: let it say so.
                this.n += JSON.stringify(value).length;
                return true;
            case "object":
                if (value === null)
                    this.n += 4;
                else if (Array.isArray(value) && !("toJSON" in value))
                    this.#array(value);
                else if (isPlainRecord(value))
                    this.#record(value);
                else {
                    const json = JSON.stringify(value);
                    if (json === undefined)
                        return false;
                    this.n += json.length;
                }
                return true;
            default:
                return false;
        }
    }
    #string(s) {
        // Quotes, then each char: escapes add 1 (\" \\ \n ...) or 5 (\u00XX, a lone surrogate as \uDXXX).
        this.n += s.length + 2;
        if (this.#over)
            return;
        for (let i = 0; i < s.length; i++) {
            const c = s.charCodeAt(i);
            if (c >= 0x20 && c !== 0x22 && c !== 0x5c && (c < 0xd800 || c > 0xdfff))
                continue;
            if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d)
                this.n += 1;
            else if (c < 0x20)
                this.n += 5;
            else if (c <= 0xdbff && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1)))
                i++;
            else
                this.n += 5;
            if (this.#over)
                return;
        }
    }
    #array(items) {
        this.n += 2 + Math.max(0, items.length - 1);
        for (let i = 0; i < items.length && !this.#over; i++) {
            if (!this.value(items[i]))
                this.n += 4; // undefined in a list is written as null
        }
    }
    #record(record) {
        this.n += 2;
        let first = true;
        for (const key of Object.keys(record)) {
            if (this.#over)
                return;
            const before = this.n;
            this.n += first ? 1 : 2; // the colon, and the comma before every member but the first
            this.#string(key);
            if (this.value(record[key]))
                first = false;
            else
                this.n = before;
        }
    }
}
const isLowSurrogate = (c) => c >= 0xdc00 && c <= 0xdfff;
function isPlainRecord(value) {
    const proto = Object.getPrototypeOf(value);
    return (proto === Object.prototype || proto === null) && !("toJSON" in value);
}
//# sourceMappingURL=json-length.js.map