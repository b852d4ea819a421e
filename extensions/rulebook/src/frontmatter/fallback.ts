import { splitOutsideBrackets } from "./split.ts";
/**
 * The seed's fallback for frontmatter that YAML cannot parse, made honest: one `key: value` per line
 * (hyphenated keys too), quoted values unquoted, unquoted `true` / `false` as booleans, `[a, b]` and
 * `key:` followed by `- item` lines as lists. Every line it cannot read is returned in `lost`, so a
 * warning names exactly what was lost, and no warning is needed when nothing was.
 */
export interface FallbackResult {
  data: Record<string, unknown>;
  /** Lines (1-based within the frontmatter block) that carried something the fallback could not keep. */
  lost: { line: number; text: string }[];
}

const KEY_LINE = /^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$/;
const ITEM_LINE = /^[ \t]+-[ \t]+(.*)$/;

export function parseFallbackLines(block: string): FallbackResult {
  const data: Record<string, unknown> = {};
  const lost: FallbackResult["lost"] = [];
  const seen = new Map<string, number>();
  let listKey: string | undefined;
  const lines = block.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.replace(/[ \t]+$/, "");
    if (!line.trim() || /^\s*#/.test(line)) return;
    const item = ITEM_LINE.exec(line);
    if (item && listKey !== undefined) {
      (data[listKey] as unknown[]).push(scalar(item[1]!));
      return;
    }
    const match = KEY_LINE.exec(line);
    if (!match) {
      lost.push({ line: i + 1, text: line });
      listKey = undefined;
      return;
    }
    const key = match[1]!;
    const previous = seen.get(key);
    if (previous !== undefined) lost.push({ line: previous, text: lines[previous - 1]!.trim() });
    seen.set(key, i + 1);
    const value = (match[2] ?? "").trim();
    // `key:` alone: a list may follow; an empty key is kept as an empty list only if items come
    listKey = value ? undefined : key;
    // defined, not assigned: a `__proto__` key is data
    const parsed = value ? lineValue(value) : [];
    Object.defineProperty(data, key, { value: parsed, enumerable: true, writable: true, configurable: true });
  });
  // `key:` with no items after it is an empty value, not an empty list
  for (const [key, value] of Object.entries(data)) if (Array.isArray(value) && value.length === 0) data[key] = "";
  return { data, lost };
}

function lineValue(text: string): unknown {
  if (text.startsWith("[") && text.endsWith("]")) {
    return splitOutsideBraces(text.slice(1, -1))
      .map((s) => scalar(s))
      .filter((s) => s !== "");
  }
  return scalar(text);
}

/** One scalar: quotes removed, `true` / `false` as booleans, everything else the text itself. */
export function scalar(text: string): unknown {
  const t = text.trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return t.slice(1, -1);
    }
  }
  if (t.length >= 2 && t.startsWith("'") && t.endsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
  const plain = t.replace(/\s+#.*$/, ""); // a YAML comment after an unquoted value
  if (plain === "true") return true;
  if (plain === "false") return false;
  return plain;
}

/** Split on commas that are not inside `{}` or `[]` (a glob's brace set stays whole). */
export function splitOutsideBraces(value: string): string[] {
  return splitOutsideBrackets(value).map((s) => s.trim());
}
