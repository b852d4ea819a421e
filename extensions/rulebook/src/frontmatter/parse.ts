import { createRequire } from "node:module";
import { parseFallbackLines, scalar, splitOutsideBraces } from "./fallback.ts";
import { flatYaml } from "./flat-yaml.ts";

export interface ParsedFrontmatter {
  /** Parsed frontmatter (empty when there is none, or when it was refused). */
  data: Record<string, unknown>;
  /** Body with the frontmatter stripped, trimmed. */
  body: string;
  hasFrontmatter: boolean;
  /**
   * Set when YAML failed and the line fallback produced `data`. `lost` lists the lines it could not
   * keep (empty when every line was read: then there is nothing to warn about). Line numbers, in `error` and in
   * `lost`, are lines of the file (the opening `---` is line 1), so a warning names one line one way.
   */
  fallback?: { error: string; lost?: { line: number; text: string }[] };
  /** Set when the file opens a frontmatter block that is never closed (the whole file is then the body). */
  unclosed?: boolean;
  /** Set when the frontmatter is over a limit (size, values after YAML aliases): the file must be skipped. */
  refused?: { reason: string };
}

/** Frontmatter longer than this is refused: a rule's keys are a few lines, not a data file. */
export const MAX_FRONTMATTER_CHARS = 64 * 1024;
/** Values (list items, mapping entries, scalars) counted with YAML aliases expanded: a "billion laughs" stops here. */
export const MAX_FRONTMATTER_VALUES = 10_000;

const refuse = (language: string) => ({
  parse: () => {
    throw new Error(`frontmatter language "${language}" is not allowed (it would run code); use YAML`);
  },
});

/** gray-matter evaluates `---js` / `---coffee` blocks: a rule file must never run code. */
const SAFE_ENGINES = Object.fromEntries(
  ["js", "javascript", "coffee", "coffeescript", "cson"].map((language) => [language, refuse(language)]),
);

type GrayMatter = (input: string, options: object) => { data: unknown };
type SafeLoad = (input: string) => unknown;
const require = createRequire(import.meta.url);
let loadedGrayMatter: GrayMatter | undefined;
let loadedSafeLoad: SafeLoad | undefined;
/** gray-matter, for a block in another language than YAML (`---json`; `---js` is refused by SAFE_ENGINES). */
function grayMatter(input: string, options: object): { data: unknown } {
  loadedGrayMatter ??= require("gray-matter") as GrayMatter;
  return loadedGrayMatter(input, options);
}
/**
 * js-yaml's `safeLoad`, which is what gray-matter's YAML engine is, from the very js-yaml gray-matter depends on, in
 * that package's own single-file build (`dist/`): one module to load instead of gray-matter's and js-yaml's forty
 * (measured: 10-15 ms of CPU against 30-40). Loaded on the first file that must be parsed; a session whose parses
 * all come from the parse store loads neither.
 */
function safeLoad(yaml: string): unknown {
  loadedSafeLoad ??= (fromGrayMatter()("js-yaml/dist/js-yaml.min.js") as { safeLoad: SafeLoad }).safeLoad;
  return loadedSafeLoad(yaml);
}

/** Resolves as gray-matter does: the js-yaml it depends on (rulebook does not depend on js-yaml itself). */
const fromGrayMatter = () => createRequire(require.resolve("gray-matter"));

/**
 * What gray-matter's YAML engine gives for the block `---<language>\n<yaml>\n---`, without loading gray-matter: the
 * text it hands the engine (up to the first line starting with `---`), `{}` when that is only comments and blank,
 * else `safeLoad` of it. Another language goes through gray-matter itself. Throws as the engine does.
 */
export function yamlBlockData(language: string, yaml: string): unknown {
  if (language !== "" && !/^ya?ml$/i.test(language)) {
    return grayMatter(`---${language}\n${yaml}\n---\n`, { engines: SAFE_ENGINES }).data;
  }
  const text = `\n${yaml}\n---\n`;
  const matter = text.slice(0, text.indexOf("\n---"));
  if (matter.replace(/^\s*#[^\n]+/gm, "").trim() === "") return {};
  // most rule files' frontmatter: read without loading js-yaml, to the same result
  return flatYaml(matter) ?? safeLoad(matter);
}

/** Lines before the block in the file: the opening `---`. YAML is parsed with that line in front, as in the file. */
const OPEN_LINES = 1;
const OPEN = /^---[^\S\r\n]*[A-Za-z]*[^\S\r\n]*\r?\n/;
const CLOSE = /\r?\n---[^\S\r\n]*(?:\r?\n|$)/;
/** Keys whose value is a glob list in some tool: Cursor writes them unquoted (`globs: *.ts, src/**`). */
const GLOB_KEYS = new Set(["globs", "paths", "applyTo"]);
const UNQUOTED_GLOB_VALUE = /^(?:globs|paths|applyTo)[ \t]*:[ \t]*[^"'\s|>#]/m;
const EMPTY_GLOB_KEY = /^(?:globs|paths|applyTo)[ \t]*:[ \t]*(?:#.*)?\r?$/m;
const UNQUOTED_ITEM = /^[ \t]+-[ \t]+[^"'\s]/m;
const TOP_KEY = /^([A-Za-z_][\w-]*)([ \t]*:)(?:([ \t]+)(.*?))?[ \t]*$/;
const ITEM = /^([ \t]+-[ \t]+)(.*?)[ \t]*$/;

/**
 * Split a rule file into frontmatter data and body. Frontmatter is recognised only when the file
 * starts with `---` and has a closing `---` line (the seed's rule). Cursor's own form
 * (`globs: **\/*.ts`, `globs: *.tsx, src/**\/*.ts`: unquoted, which strict YAML reads as an alias) is
 * read as the tool reads it, without a warning. YAML is parsed by gray-matter under limits (size,
 * values after alias expansion). When YAML still fails, the line fallback is used and
 * `fallback.lost` names what it could not keep, so the caller warns only about real losses.
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
  const refuse = (reason: string): ParsedFrontmatter => ({ data: {}, body, hasFrontmatter: true, refused: { reason } });
  if (block.length > MAX_FRONTMATTER_CHARS) {
    return refuse(`frontmatter is ${block.length} characters (limit ${MAX_FRONTMATTER_CHARS})`);
  }
  const language = open[0].slice(3).trim();
  // `---yaml` is YAML; any other language (`---js`) is refused, never read line by line
  const code = language !== "" && !/^ya?ml$/i.test(language);
  const attempt = (yaml: string) => parseYaml(language, yaml);
  let result = attempt(quoteGlobValues(block));
  if (!result.ok && !code) {
    // Not Cursor's glob form: read any other unquoted value YAML rejects (`description: a: b`) as text
    const retry = attempt(quoteRejectedValues(quoteGlobValues(block)));
    if (retry.ok) result = retry;
  }
  if (result.ok) {
    // only YAML aliases (`&a` ... `*a`) can make a small block expand; without them there is nothing to count
    const over = block.includes("*") && block.includes("&") && countValues(result.data, MAX_FRONTMATTER_VALUES);
    if (over) return refuse(`frontmatter expands to more than ${MAX_FRONTMATTER_VALUES} values (nested YAML aliases?)`);
    return { data: result.data, body, hasFrontmatter: true };
  }
  if (code) {
    // `---js` and friends: nothing is read line by line from a block that was meant to be code
    const lost = block
      .split(/\r?\n/)
      .map((text, i) => ({ line: i + 1 + OPEN_LINES, text: text.trim() }))
      .filter((l) => l.text);
    return { data: {}, body, hasFrontmatter: true, fallback: { error: result.error, lost } };
  }
  const fallback = parseFallbackLines(block);
  return {
    data: fallback.data,
    body,
    hasFrontmatter: true,
    // the fallback numbers lines of the block; YAML's error (and the user's editor) numbers lines of the file
    fallback: { error: result.error, lost: fallback.lost.map((l) => ({ ...l, line: l.line + OPEN_LINES })) },
  };
}

type YamlResult = { ok: true; data: Record<string, unknown> } | { ok: false; error: string };

function parseYaml(language: string, yaml: string): YamlResult {
  try {
    const data: unknown = yamlBlockData(language, yaml);
    if (data !== null && typeof data === "object" && !Array.isArray(data)) {
      // js-yaml defines every key as an own property (`__proto__` and `constructor` stay plain data)
      return { ok: true, data: data as Record<string, unknown> };
    }
    return { ok: false, error: "frontmatter is not a key/value mapping" };
  } catch (error) {
    return { ok: false, error: firstLine(error) };
  }
}

/**
 * Cursor's documented form: the value of a glob key is text, not YAML (`globs: *.tsx, src/**\/*.ts`).
 * Rewrite such values (and `- *.ts` list items under them, and `[*.ts, *.md]`) as quoted strings so
 * YAML reads exactly the text; quoted values, block scalars and comments are left alone.
 */
function quoteGlobValues(block: string): string {
  // fast path: no glob key with an unquoted value or an unquoted list item under it
  if (!UNQUOTED_GLOB_VALUE.test(block) && !(EMPTY_GLOB_KEY.test(block) && UNQUOTED_ITEM.test(block))) return block;
  let inGlobList = false;
  return block
    .split("\n")
    .map((line) => {
      const top = TOP_KEY.exec(line.replace(/\r$/, ""));
      if (top) {
        const [, key, colon, space, value = ""] = top;
        inGlobList = GLOB_KEYS.has(key!) && !value;
        if (!GLOB_KEYS.has(key!) || !value || /^["'|>#]/.test(value)) return line;
        if (value.startsWith("[") && value.endsWith("]")) {
          const items = splitOutsideBraces(value.slice(1, -1)).filter(Boolean);
          // only a list YAML would misread (`[*.ts]` is an alias to YAML) is rewritten; `[a, 7]` stays YAML
          if (!items.some((item) => /^[*&!%@`{]/.test(item))) return line;
          return `${key}${colon}${space}${JSON.stringify(items.map((s) => String(scalar(s))))}`;
        }
        return `${key}${colon}${space}${JSON.stringify(stripComment(value))}`;
      }
      const item = inGlobList ? ITEM.exec(line.replace(/\r$/, "")) : null;
      if (item && !/^["']/.test(item[2]!)) return `${item[1]}${JSON.stringify(stripComment(item[2]!))}`;
      if (!/^\s/.test(line)) inGlobList = false;
      return line;
    })
    .join("\n");
}

/** Second chance: any top-level `key: value` line YAML rejects on its own is read as the text after the colon. */
function quoteRejectedValues(block: string): string {
  return block
    .split("\n")
    .map((line) => {
      const top = TOP_KEY.exec(line.replace(/\r$/, ""));
      if (!top?.[4] || /^["'|>[{]/.test(top[4])) return line;
      if (parseYaml("", line).ok) return line;
      return `${top[1]}${top[2]}${top[3]}${JSON.stringify(top[4])}`;
    })
    .join("\n");
}

/** ` # comment` at the end of a plain value, as YAML would drop it. */
function stripComment(value: string): string {
  return value.replace(/\s+#.*$/, "").trim();
}

/** True when `value` holds more than `limit` values, counting shared (aliased) nodes each time they appear. */
function countValues(value: unknown, limit: number): boolean {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (++count > limit) return true;
    if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v !== null && typeof v === "object") for (const k of Object.keys(v)) stack.push((v as never)[k]);
  }
  return false;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0]!.trim().replace(/:$/, "");
}
