import matter from "gray-matter";
import { parseFallbackLines } from "./fallback.ts";

export interface ParsedFrontmatter {
  /** Parsed frontmatter (empty when there is none). */
  data: Record<string, unknown>;
  /** Body with the frontmatter stripped, trimmed. */
  body: string;
  hasFrontmatter: boolean;
  /** Set when YAML failed and the line fallback produced `data` (all values strings). */
  fallback?: { error: string };
  /** Set when the file opens a frontmatter block that is never closed (the whole file is then the body). */
  unclosed?: boolean;
}

const refuse = (language: string) => ({
  parse: () => {
    throw new Error(`frontmatter language "${language}" is not allowed (it would run code); use YAML`);
  },
});

/** gray-matter evaluates `---js` / `---coffee` blocks: a rule file must never run code. */
const SAFE_ENGINES = {
  js: refuse("js"),
  javascript: refuse("javascript"),
  coffee: refuse("coffee"),
  coffeescript: refuse("coffeescript"),
  cson: refuse("cson"),
};

/** gray-matter's typings are generic over the input string; we only need this much. */
const grayMatter = matter as unknown as (input: string, options: object) => { data: unknown };

const OPEN = /^---[^\S\r\n]*[A-Za-z]*[^\S\r\n]*\r?\n/;
const CLOSE = /\r?\n---[^\S\r\n]*(?:\r?\n|$)/;

/**
 * Split a rule file into frontmatter data and body. Frontmatter is recognised only when the file
 * starts with `---` and has a closing `---` line (the seed's rule). YAML is parsed by gray-matter;
 * when it fails, or yields something that is not a mapping, the seed's line fallback is used and
 * `fallback.error` says why, so the caller can warn with the file name.
 */
export function parseFrontmatter(text: string): ParsedFrontmatter {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const open = OPEN.exec(source);
  if (!open && !/^---[^\S\r\n]*$/.test(source)) return { data: {}, body: source.trim(), hasFrontmatter: false };
  const rest = open ? source.slice(open[0].length) : "";
  // Search from a virtual newline so an empty block ("---\n---") closes at once.
  const close = open ? CLOSE.exec("\n" + rest) : null;
  if (!open || !close) return { data: {}, body: source.trim(), hasFrontmatter: false, unclosed: true };
  const block = rest.slice(0, Math.max(0, close.index - 1));
  const body = ("\n" + rest).slice(close.index + close[0].length).trim();
  try {
    // gray-matter sees only the block we delimited, so its idea of the closing line cannot differ from ours.
    const parsed = grayMatter(`${open[0]}${block}\n---\n`, { engines: SAFE_ENGINES });
    const data: unknown = parsed.data;
    if (data !== null && typeof data === "object" && !Array.isArray(data)) {
      return { data: { ...(data as Record<string, unknown>) }, body, hasFrontmatter: true };
    }
    throw new Error("frontmatter is not a key/value mapping");
  } catch (error) {
    return { data: parseFallbackLines(block), body, hasFrontmatter: true, fallback: { error: firstLine(error) } };
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0]!.trim().replace(/:$/, "");
}
