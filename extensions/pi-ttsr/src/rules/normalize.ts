import {
  checkGlob,
  conditionProblemText,
  isFileGlobCondition,
  noUsableConditionText,
  readStreamConditions,
  splitOutsideBrackets,
} from "@pi-rails/rulebook/discovery";
import type { MatchWindow } from "../matcher/compile.ts";
import {
  INTERRUPT_MODES,
  type RuleIssue,
  type RuleScope,
  type SourceRule,
  type ToolScope,
  type TtsrRule,
} from "./types.ts";

const WINDOWS: readonly MatchWindow[] = ["accumulated", "line", "chunk"];
/** Windsurf's `trigger` values are activation modes, never regexes. */
const WINDSURF_TRIGGERS = new Set(["always_on", "manual", "model_decision", "glob"]);

export interface NormalizeResult {
  /** Undefined when the rule has no stream condition (not a TTSR rule) or cannot become one. */
  rule?: TtsrRule;
  issues: RuleIssue[];
  /**
   * Set when the rule has stream conditions and none can be used: why it is not loaded, in rulebook's words
   * (`streamConditionProblem`), so `rulebook doctor` and pi-ttsr name the rule's problem the same way.
   */
  skipped?: { reason: string; key: string };
}

function strings(value: unknown): string[] | undefined {
  if (typeof value === "string") return value.trim() ? [value] : [];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string" && v.trim() !== "");
  return undefined;
}

/** Splits `a, tool:edit(*.{ts,tsx}), b` on commas / whitespace outside brackets. */
export function splitScopeTokens(value: string): string[] {
  return splitOutsideBrackets(value, { brackets: "({[", whitespace: true }).filter(Boolean);
}

const SCOPE_TOKEN = /^tool(?::([^()\s]+))?(?:\((.+)\))?$/;
/** A bare tool name, as the reference writes scopes (`scope: edit`, `edit(*.ts)`). */
const BARE_TOOL_TOKEN = /^([A-Za-z0-9_-]+)(?:\((.+)\))?$/;

/** A token from the YAML line fallback can keep its quotes (`"text","thinking"`): they are not part of it. */
function unquote(token: string): string {
  return token.trim().replace(/^["'`]+|["'`]+$/g, "");
}

/**
 * Parses scope tokens; window names (the proposal's `scope: line`) are returned apart. A bare identifier is a
 * tool name (`edit` is `tool:edit`, `edit(*.ts)` is `tool:edit(*.ts)`); `toolcall` is any tool.
 */
export function parseScope(tokens: readonly string[]): { scope: RuleScope; window?: MatchWindow; unknown: string[] } {
  const scope: RuleScope = { text: false, thinking: false, tools: [] };
  const unknown: string[] = [];
  let window: MatchWindow | undefined;
  for (const raw of tokens) {
    const token = unquote(raw);
    if (!token) continue;
    const lower = token.toLowerCase();
    if (lower === "text") scope.text = true;
    else if (lower === "thinking") scope.thinking = true;
    else if ((WINDOWS as readonly string[]).includes(lower)) window = lower as MatchWindow;
    else if (lower === "toolcall") scope.tools.push({});
    else {
      const m = SCOPE_TOKEN.exec(token) ?? BARE_TOOL_TOKEN.exec(token);
      if (!m) {
        unknown.push(token);
        continue;
      }
      const tool: ToolScope = {};
      if (m[1] && m[1] !== "*") tool.name = m[1];
      if (m[2]) tool.glob = m[2].trim();
      scope.tools.push(tool);
    }
  }
  return { scope, window, unknown };
}

export function scopeReachesAStream(scope: RuleScope): boolean {
  return scope.text || scope.thinking || scope.tools.length > 0;
}

/** A number, or a string such as `30` or `"30s"`, of at least `min` (and whole, with `whole`); else undefined. */
function numberAtLeast(value: unknown, min: number, whole = false): number | undefined {
  const m = typeof value === "string" ? /^(\d+(?:\.\d+)?)\s*s?$/.exec(value.trim()) : null;
  const n = typeof value === "number" ? value : m ? Number(m[1]) : undefined;
  return n !== undefined && n >= min && (!whole || Number.isInteger(n)) ? n : undefined;
}

function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (value === "true") return true;
  if (value === "false") return false;
  return undefined;
}

export { isFileGlobCondition };

/** The tools a glob condition watches. */
const GLOB_CONDITION_TOOLS = ["edit", "write"] as const;
/** The condition of a rule made only of glob conditions: any character written to a matching path. */
export const ANY_CONTENT = "[\\s\\S]";

/**
 * The same check of a glob rulebook makes, without loading minimatch (globs compile on first use, `LazyGlob`):
 * `problem`, why it cannot be used (too long, brace sets that expand combinatorially); else `never`, why a glob that
 * is kept can never match (a trailing backslash, an unclosed `[`, `{` or extglob `+(`, a bare `!`: the glob library
 * reads it literally). Such a rule still loads; the user is told once.
 */
export function checkRuleGlob(glob: string): { problem?: string; never?: string } {
  const check = checkGlob(glob);
  if (check.glob === undefined)
    return { problem: check.issue?.message ?? `glob ${JSON.stringify(glob)} cannot be used` };
  return check.issue?.kind === "glob-unmatchable" ? { never: check.issue.message } : {};
}

/** The keys a condition is written under, besides the proposal's `trigger` (which may also be Windsurf's). */
const CONDITION_KEYS = ["condition", "ttsr_trigger", "ttsrTrigger"];

/** Frontmatter keys read by pi-ttsr or by rulebook (for any format a TTSR rule may come from). */
const KNOWN_KEYS = new Set([
  ...CONDITION_KEYS,
  ..."trigger flags scope window globs maxFirings max_firings cooldown interrupt interruptMode".split(" "),
  ..."description alwaysApply paths applyTo".split(" "),
]);

function own(meta: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(meta, key) ? meta[key] : undefined;
}

/**
 * A Windsurf rule (`trigger: always_on | model_decision | glob | manual`, e.g. copied into `.pi/rules`): its
 * trigger is an activation mode, never a stream regex, whatever discovery made of it.
 */
export function isWindsurfActivation(meta: Record<string, unknown>): boolean {
  const trigger = own(meta, "trigger");
  const explicit = CONDITION_KEYS.some((k) => own(meta, k) != null);
  return !explicit && typeof trigger === "string" && WINDSURF_TRIGGERS.has(trigger.trim());
}

/** Reads a frontmatter value: the value, or undefined when it is not one. */
type Parse<T> = (value: unknown) => T | undefined;

type Report = (key: string | undefined, message: string) => void;

/**
 * Splits conditions into regexes (a `/src/flags` literal read, a leading `(?i)` moved to flags) and file globs, as
 * rulebook reads them (`readStreamConditions`: the one reading `rulebook doctor` shares). While another condition
 * is usable, an unusable one is reported and dropped; when none is, the caller skips the rule.
 */
function readConditions(
  conditions: readonly string[],
  flags: string,
  key: string,
  issue: Report,
): { regexes: Array<{ source: string; flags: string }>; globs: string[]; skipped?: string } {
  const read = readStreamConditions(conditions, flags);
  for (const note of read.notes) issue(key, note.message);
  if (read.regexes.length === 0 && read.globs.length === 0)
    return { regexes: [], globs: [], skipped: noUsableConditionText(read.problems) };
  for (const problem of read.problems) issue(key, `${conditionProblemText(problem)}; this condition is not used`);
  return { regexes: read.regexes, globs: read.globs };
}

/**
 * The `scope` key: its streams (undefined when absent or when it names no stream token and no unknown one, as
 * the proposal's `scope: line`), and a window name it carries. Unknown tokens are reported; a scope of only
 * unknown tokens reaches no stream (the registry then skips the rule, saying why).
 */
function readScope(raw: unknown, issue: Report): { scope?: RuleScope; window?: MatchWindow } {
  if (raw === undefined || raw === null) return {};
  const list = typeof raw === "string" ? splitScopeTokens(raw) : strings(raw)?.flatMap((t) => splitScopeTokens(t));
  if (!list) {
    issue("scope", "expected a string or a list of scope tokens");
    return {};
  }
  const parsed = parseScope(list);
  for (const u of parsed.unknown)
    issue("scope", `unknown token "${u}" (use text, thinking, tool, tool:<name>, tool:<name>(<glob>) or a tool name)`);
  const named = scopeReachesAStream(parsed.scope) || parsed.unknown.length > 0;
  return { ...(named ? { scope: parsed.scope } : {}), ...(parsed.window ? { window: parsed.window } : {}) };
}

/**
 * Turns a discovered rule into a TTSR rule, reading both formats:
 * - lifecycle: `condition` (or legacy `ttsr_trigger` / `ttsrTrigger`), `scope` tokens, `globs`;
 * - proposal: `trigger` + `flags`, `scope: line|chunk|accumulated` as the match window, `maxFirings`, `cooldown`;
 * - the reference's keys: `interruptMode` per rule, bare tool names in `scope`, file-glob conditions (`*.rs`).
 * A bad value is reported naming the file and key and dropped; the rest of the rule still loads.
 */
export function normalizeRule(rule: SourceRule, options: { builtin?: boolean } = {}): NormalizeResult {
  const issues: RuleIssue[] = [];
  const meta: Record<string, unknown> = rule.meta ?? {};
  const issue = (key: string | undefined, message: string) =>
    issues.push({ rule: rule.name, path: rule.path, ...(key ? { key } : {}), message });
  const pick = (keys: readonly string[]) => {
    for (const key of keys) {
      const value = own(meta, key);
      if (value !== undefined && value !== null) return { key, value };
    }
    return undefined;
  };
  /** `raw` as `parse` reads it; a value it refuses is reported as not `expected`, and `then` says what applies. */
  const readKey = <T>(key: string, raw: unknown, parse: Parse<T>, expected: string, then = "; ignored") => {
    if (raw === undefined) return undefined;
    const value = parse(raw);
    if (value === undefined) issue(key, `expected ${expected}, got ${JSON.stringify(raw)}${then}`);
    return value;
  };

  const explicit = pick(CONDITION_KEYS);
  const trigger = own(meta, "trigger");
  const windsurf = isWindsurfActivation(meta);

  // Conditions: rulebook already merged condition / ttsr_trigger / ttsrTrigger / native trigger.
  let conditionKey = "condition";
  let conditions = windsurf ? [] : rule.condition?.filter((c) => c.trim() !== "");
  if (!windsurf && (!conditions || conditions.length === 0)) {
    const found = pick([...CONDITION_KEYS, "trigger"]);
    if (found) {
      conditionKey = found.key;
      const list = strings(found.value);
      if (list === undefined) issue(found.key, "expected a regex string or a list of them");
      conditions = list ?? [];
    }
  }
  const proposal = trigger !== undefined && CONDITION_KEYS.every((k) => own(meta, k) === undefined);
  const format: TtsrRule["format"] = proposal ? "proposal" : "lifecycle";
  if (!conditions || conditions.length === 0) return { issues };
  if (format === "proposal") conditionKey = "trigger";
  else if (explicit) conditionKey = explicit.key;

  const flagsOf = (v: unknown) => (typeof v === "string" && /^[dgimsuvy]*$/.test(v.trim()) ? v.trim() : undefined);
  const flags = readKey("flags", own(meta, "flags"), flagsOf, 'regex flags like "i" or "im"') ?? "";

  // File-glob conditions (`*.rs`) become edit/write scopes; a leading `(?i)` becomes a flag.
  const read = readConditions(conditions, flags, conditionKey, issue);
  if (read.skipped) return { issues, skipped: { reason: read.skipped, key: conditionKey } };
  const globOnly = read.regexes.length === 0 && read.globs.length > 0;
  const compiled = globOnly ? [{ source: ANY_CONTENT, flags: "" }] : read.regexes;

  // Scope tokens and the match window (the proposal spells the window `scope`).
  // Default: what the model says and does. Thinking is opt-in (`scope: thinking`): a model reasoning "I must not
  // call eval()" should not be interrupted for it.
  const explicitScope = readScope(own(meta, "scope"), issue);
  let scope: RuleScope = explicitScope.scope ?? { text: true, thinking: false, tools: [{}] };
  if (read.globs.length > 0) {
    // As in the reference: the glob scopes are added to an explicit scope, or are the whole scope. With only glob
    // conditions the rule matches any content, so it keeps to edits and writes of those paths (else it would
    // fire on every response).
    const inferred = read.globs.flatMap((glob) => GLOB_CONDITION_TOOLS.map((name) => ({ name, glob })));
    if (globOnly && explicitScope.scope)
      issue("scope", "ignored: a rule whose conditions are all file globs watches edits and writes of those paths");
    scope =
      explicitScope.scope && !globOnly
        ? { ...scope, tools: [...scope.tools, ...inferred] }
        : { text: false, thinking: false, tools: inferred };
  }
  const fromConditions = new Set(read.globs);
  scope.tools = scope.tools.filter((tool) => {
    const { problem, never } = tool.glob ? checkRuleGlob(tool.glob) : {};
    if (problem) issue("scope", `${problem}; tool:${tool.name ?? "*"}(...) is not used`);
    // a glob condition was reported with its key above; a scope token's own glob is reported here, once
    if (never && !fromConditions.has(tool.glob!)) issue("scope", `${never} (in tool:${tool.name ?? "*"}(...))`);
    return !problem;
  });
  const windowOf = (v: unknown) => WINDOWS.find((w) => w === v);
  const fromKey = readKey("window", own(meta, "window"), windowOf, "line, chunk or accumulated", "; using the default");
  const fromScope = explicitScope.window;
  if (fromKey && fromScope && fromScope !== fromKey) issue("window", `overrides scope's "${fromScope}"`);
  const window = fromKey ?? fromScope ?? (format === "proposal" && !globOnly ? "line" : "accumulated");

  let globs = rule.globs;
  const rawGlobs = own(meta, "globs");
  if (!globs && rawGlobs !== undefined && rawGlobs !== null) {
    globs = typeof rawGlobs === "string" ? rawGlobs.split(",").map((g) => g.trim()) : strings(rawGlobs);
    if (!globs) issue("globs", "expected a glob string or a list of globs");
  }
  globs = globs
    ?.map((g) => unquote(g))
    .filter((g) => {
      if (g.length === 0) return false;
      const { problem, never } = checkRuleGlob(g);
      if (problem) issue("globs", `${problem}; ignored`);
      // rulebook checked the globs it read and reported them (forwarded with the rule's file); raw ones are ours
      if (never && !rule.globs) issue("globs", never);
      return !problem;
    });

  const mf = pick(["maxFirings", "max_firings"]);
  const maxFirings = mf && readKey(mf.key, mf.value, (v) => numberAtLeast(v, 1, true), "a whole number >= 1");
  const cooldown = readKey("cooldown", own(meta, "cooldown"), (v) => numberAtLeast(v, 0), "seconds (a number >= 0)");
  const interrupt = readKey("interrupt", own(meta, "interrupt"), booleanOf, "true or false", "") ?? true;
  const modeOf = (v: unknown) => INTERRUPT_MODES.find((mode) => mode === (typeof v === "string" ? unquote(v) : v));
  const interruptMode = readKey(
    "interruptMode",
    own(meta, "interruptMode") ?? undefined,
    modeOf,
    INTERRUPT_MODES.join(", "),
    "; the ttsr.interruptMode setting applies",
  );

  const unknownKeys = Object.keys(meta).filter((k) => !KNOWN_KEYS.has(k));
  if (unknownKeys.length > 0)
    issue(
      unknownKeys.join(", "),
      `unknown key${unknownKeys.length === 1 ? "" : "s"} ${unknownKeys.join(", ")}: not read by pi-ttsr; ignored`,
    );

  const ttsr: TtsrRule = {
    name: rule.name,
    path: rule.path,
    content: rule.content,
    conditions: compiled,
    conditionKey,
    window,
    scope,
    interrupt,
    format,
    builtin: options.builtin ?? false,
    origin: { provider: rule.source.provider, scope: rule.source.scope, path: rule.source.path },
  };
  if (rule.description) ttsr.description = rule.description;
  if (globs && globs.length > 0) ttsr.globs = globs;
  if (maxFirings !== undefined) ttsr.maxFirings = maxFirings;
  if (cooldown !== undefined) ttsr.cooldown = cooldown;
  if (interruptMode !== undefined) ttsr.interruptMode = interruptMode;
  if (unknownKeys.length > 0) ttsr.unknownKeys = unknownKeys;
  return { rule: ttsr, issues };
}
