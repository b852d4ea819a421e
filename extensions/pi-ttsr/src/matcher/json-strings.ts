/** Argument keys that name the file(s) a tool call acts on (pi's tools and common custom ones). */
export const PATH_KEYS: ReadonlySet<string> = new Set("path file_path filePath file filename paths files".split(" "));

/**
 * Argument keys whose values are text being removed or searched for, not written: an edit that deletes
 * `: any` must not trip a rule against `: any` (pi's `edit` sends `edits[].oldText`).
 */
export const REMOVED_TEXT_KEYS: ReadonlySet<string> = new Set(
  "oldText old_text oldString old_string old_str search".split(" "),
);

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", '"': '"', "\\": "\\", "/": "/" };

interface Frame {
  object: boolean;
  expectKey: boolean;
  /** The key whose value this container is (for `paths: [...]`). */
  key?: string;
}

/**
 * Turns a tool call's raw JSON argument deltas into the decoded text of its string values, incrementally
 * (constant work per character; the partial JSON is never re-parsed). Rules are written against what the tool
 * receives (`it's` in a file, not a JSON-escaped `it\'s`), so tool streams are matched on decoded values; keys
 * and removed text (`oldText`, see REMOVED_TEXT_KEYS) are skipped, and each value ends with a line feed. File paths (`path`, `file_path`, `paths`,
 * ...) are collected as soon as their string closes, so path gates act while the rest still streams.
 */
export class JsonStringDecoder {
  private inString = false;
  private isKey = false;
  private escape = false;
  private unicode = "";
  private readonly stack: Frame[] = [];
  private lastKey: string | undefined;
  private keyText = "";
  private capture: string | undefined;
  /** The current value is removed text (see REMOVED_TEXT_KEYS): not part of what is written. */
  private skipValue = false;
  /** File paths whose JSON string is complete. */
  readonly paths: string[] = [];

  /** Returns the decoded value text contained in this raw delta. */
  push(raw: string): string {
    let out = "";
    for (let i = 0; i < raw.length; i++) {
      const ch = raw[i]!;
      if (this.inString) {
        let decoded: string | undefined;
        if (this.unicode.length > 0) {
          this.unicode += ch;
          if (this.unicode.length === 5) {
            decoded = String.fromCharCode(Number.parseInt(this.unicode.slice(1), 16) || 0);
            this.unicode = "";
          }
        } else if (this.escape) {
          this.escape = false;
          if (ch === "u") this.unicode = "u";
          else decoded = ESCAPES[ch] ?? ch;
        } else if (ch === "\\") this.escape = true;
        else if (ch === '"') {
          this.inString = false;
          if (this.isKey) this.lastKey = this.keyText;
          else {
            // The value is complete: a line feed ends it, so a `\b` or `$` at its end is settled right away.
            if (!this.skipValue) out += "\n";
            this.skipValue = false;
            if (this.capture !== undefined && this.capture.length > 0) this.paths.push(this.capture);
          }
          this.capture = undefined;
        } else decoded = ch;
        if (decoded !== undefined) {
          if (this.isKey) this.keyText += decoded;
          else if (!this.skipValue) {
            out += decoded;
            if (this.capture !== undefined) this.capture += decoded;
          }
        }
        continue;
      }
      const top = this.stack[this.stack.length - 1];
      switch (ch) {
        case '"':
          this.inString = true;
          this.isKey = top?.object === true && top.expectKey;
          if (this.isKey) this.keyText = "";
          else {
            this.capture = this.isPathValue(top) ? "" : undefined;
            this.skipValue = top?.object === true && this.lastKey !== undefined && REMOVED_TEXT_KEYS.has(this.lastKey);
          }
          break;
        case "{":
        case "[": {
          const frame: Frame = { object: ch === "{", expectKey: ch === "{" };
          if (top?.object && this.lastKey !== undefined) frame.key = this.lastKey;
          else if (top && !top.object && top.key !== undefined) frame.key = top.key;
          this.stack.push(frame);
          break;
        }
        case "}":
        case "]":
          this.stack.pop();
          break;
        case ":":
          if (top) top.expectKey = false;
          break;
        case ",":
          if (top?.object) top.expectKey = true;
          break;
        default:
          break;
      }
    }
    return out;
  }

  /** A string value is a path when its key is a path key (top level, or inside a `paths: [...]` list). */
  private isPathValue(top: Frame | undefined): boolean {
    if (!top) return false;
    if (top.object) return this.stack.length === 1 && this.lastKey !== undefined && PATH_KEYS.has(this.lastKey);
    return this.stack.length === 2 && top.key !== undefined && PATH_KEYS.has(top.key);
  }
}

/** File paths read from already-parsed tool arguments (stock pi hands these over). */
export function pathsFromArgs(args: unknown): string[] {
  if (!args || typeof args !== "object") return [];
  const record = args as Record<string, unknown>;
  const paths: string[] = [];
  for (const key of PATH_KEYS) {
    const value = record[key];
    if (typeof value === "string" && value.length > 0) paths.push(value);
    else if (Array.isArray(value)) for (const v of value) if (typeof v === "string" && v.length > 0) paths.push(v);
  }
  return paths;
}
