import { splitOutsideBrackets } from "../frontmatter/split.ts";
import type { RuleWarning } from "../rule.ts";

/**
 * Reading typed values out of raw frontmatter. Each reader returns the value when its type is right
 * and otherwise reports what it dropped and why: "no silent drops".
 */
export interface FieldContext {
  data: Record<string, unknown>;
  path: string;
  provider: string;
  warnings: RuleWarning[];
}

function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

export function drop(ctx: FieldContext, key: string, value: unknown, expected: string, hint?: string): void {
  ctx.warnings.push({
    path: ctx.path,
    provider: ctx.provider,
    key,
    kind: "dropped-value",
    message: `${key}: ignored ${show(value)}: expected ${expected}${hint ? `. ${hint}` : ""}`,
  });
}

export function has(ctx: FieldContext, key: string): boolean {
  return Object.hasOwn(ctx.data, key) && ctx.data[key] !== undefined && ctx.data[key] !== null;
}

/** A non-empty string. */
export function readString(ctx: FieldContext, key: string): string | undefined {
  if (!has(ctx, key)) return undefined;
  const value = ctx.data[key];
  if (typeof value !== "string") drop(ctx, key, value, "a string");
  else if (value.trim()) return value.trim();
  else drop(ctx, key, value, "a non-empty string");
  return undefined;
}

/**
 * A real boolean. `"true"` / `"false"` as strings are dropped and reported (the classic silent
 * failure in Cursor rules); with `onlyTrue`, `false` is accepted but kept as `undefined` (Cursor).
 */
export function readBoolean(ctx: FieldContext, key: string, options: { onlyTrue?: boolean } = {}): boolean | undefined {
  if (!has(ctx, key)) return undefined;
  const value = ctx.data[key];
  if (typeof value === "boolean") return options.onlyTrue && !value ? undefined : value;
  const text = typeof value === "string" ? value.trim().toLowerCase() : undefined;
  const hint =
    text === "true" || text === "false"
      ? `It is the string "${value}": write ${key}: ${text} without quotes`
      : undefined;
  drop(ctx, key, value, "a boolean (true or false)", hint);
  return undefined;
}

/**
 * Split a comma-separated glob list, leaving commas inside `{a,b}` alone (Cursor and Copilot write
 * `globs: src/**\/*.ts, test/**` as one string).
 */
export function splitGlobList(value: string): string[] {
  return splitOutsideBrackets(value, { brackets: "{" })
    .map((g) => g.trim().replace(/^["']|["']$/g, ""))
    .filter(Boolean);
}

/**
 * Globs from a string (comma list) or a list of strings; non-string elements are reported. With
 * `splitElements: false` a list element is one glob even when it has a comma (Claude Code's `paths`).
 */
export function readGlobs(
  ctx: FieldContext,
  key: string,
  options: { splitElements?: boolean } = {},
): string[] | undefined {
  if (!has(ctx, key)) return undefined;
  const value = ctx.data[key];
  const globs: string[] = [];
  if (typeof value === "string") {
    globs.push(...splitGlobList(value));
  } else if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item === "string") {
        if (options.splitElements === false) {
          if (item.trim()) globs.push(item.trim());
        } else globs.push(...splitGlobList(item));
      } else drop(ctx, key, item, "each glob to be a string");
    }
  } else {
    drop(ctx, key, value, "a glob string or a list of glob strings");
    return undefined;
  }
  if (globs.length) return globs;
  // a list of only non-strings was reported item by item above
  if (typeof value === "string" || value.length === 0) drop(ctx, key, value, "at least one glob");
  return undefined;
}

/** Strings from a string or a list of strings (stream conditions). */
function readStringList(ctx: FieldContext, key: string): string[] | undefined {
  if (!has(ctx, key)) return undefined;
  const value = ctx.data[key];
  if (Array.isArray(value)) {
    const out: string[] = [];
    for (const item of value) {
      if (typeof item === "string" && item.trim()) out.push(item);
      else drop(ctx, key, item, "each condition to be a non-empty string");
    }
    return out.length ? out : undefined;
  }
  if (typeof value !== "string") drop(ctx, key, value, "a string or a list of strings");
  else if (value.trim()) return [value];
  else drop(ctx, key, value, "a non-empty string");
  return undefined;
}

/**
 * The TTSR stream condition: the first of `keys` present wins (`condition`, then the legacy
 * `ttsr_trigger` / `ttsrTrigger`, then, for native pi rules only, `trigger`); later ones are reported.
 */
export function readCondition(ctx: FieldContext, keys: readonly string[]): string[] | undefined {
  let found: { key: string; value: string[] } | undefined;
  for (const key of keys) {
    if (!has(ctx, key)) continue;
    if (found) {
      drop(ctx, key, ctx.data[key], `nothing: "${found.key}" already sets the stream condition`);
      continue;
    }
    const value = readStringList(ctx, key);
    if (value) found = { key, value };
  }
  return found?.value;
}

export const CONDITION_KEYS = ["condition", "ttsr_trigger", "ttsrTrigger"] as const;
export const NATIVE_CONDITION_KEYS = [...CONDITION_KEYS, "trigger"] as const;
