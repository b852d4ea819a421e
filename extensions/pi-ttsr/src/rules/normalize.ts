import type { MatchWindow } from "../matcher/compile.ts";
import { splitLiteral } from "../matcher/compile.ts";
import type { RuleIssue, RuleScope, SourceRule, ToolScope, TtsrRule } from "./types.ts";

const WINDOWS: readonly MatchWindow[] = ["accumulated", "line", "chunk"];
/** Windsurf's `trigger` values are activation modes, never regexes. */
const WINDSURF_TRIGGERS = new Set(["always_on", "manual", "model_decision", "glob"]);

export interface NormalizeResult {
  /** Undefined when the rule has no stream condition (not a TTSR rule) or cannot become one. */
  rule?: TtsrRule;
  issues: RuleIssue[];
}

function strings(value: unknown): string[] | undefined {
  if (typeof value === "string") return value.trim() ? [value] : [];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string" && v.trim() !== "");
  return undefined;
}

/** Reads a frontmatter key under any of its spellings; the first present wins. */
function pick(meta: Record<string, unknown>, keys: readonly string[]): { key: string; value: unknown } | undefined {
  for (const key of keys) if (meta[key] !== undefined && meta[key] !== null) return { key, value: meta[key] };
  return undefined;
}

/** Splits `a, tool:edit(*.{ts,tsx}), b` on commas / whitespace outside brackets. */
export function splitScopeTokens(value: string): string[] {
  const tokens: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of value) {
    if (ch === "(" || ch === "{" || ch === "[") depth++;
    if (ch === ")" || ch === "}" || ch === "]") depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === "," || /\s/.test(ch))) {
      if (current) tokens.push(current);
      current = "";
      continue;
    }
    current += ch;
  }
  if (current) tokens.push(current);
  return tokens;
}

const SCOPE_TOKEN = /^tool(?::([^()\s]+)(?:\((.+)\))?)?$/;

/** Parses scope tokens; window names (the proposal's `scope: line`) are returned apart. */
export function parseScope(tokens: readonly string[]): { scope: RuleScope; window?: MatchWindow; unknown: string[] } {
  const scope: RuleScope = { text: false, thinking: false, tools: [] };
  const unknown: string[] = [];
  let window: MatchWindow | undefined;
  for (const raw of tokens) {
    const token = raw.trim();
    if (token === "text") scope.text = true;
    else if (token === "thinking") scope.thinking = true;
    else if ((WINDOWS as readonly string[]).includes(token)) window = token as MatchWindow;
    else {
      const m = SCOPE_TOKEN.exec(token);
      if (!m) {
        unknown.push(token);
        continue;
      }
      const tool: ToolScope = {};
      if (m[1] && m[1] !== "*") tool.name = m[1];
      if (m[2]) tool.glob = m[2];
      scope.tools.push(tool);
    }
  }
  return { scope, window, unknown };
}

export function scopeReachesAStream(scope: RuleScope): boolean {
  return scope.text || scope.thinking || scope.tools.length > 0;
}

function numberOf(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "string" && value.trim() !== "") {
    const m = /^(\d+(?:\.\d+)?)\s*s?$/.exec(value.trim());
    if (m) return Number(m[1]);
  }
  return undefined;
}

function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (value === "true") return true;
  if (value === "false") return false;
  return undefined;
}

/**
 * Turns a discovered rule into a TTSR rule, reading both formats:
 * - lifecycle: `condition` (or legacy `ttsr_trigger` / `ttsrTrigger`), `scope` tokens, `globs`;
 * - proposal: `trigger` + `flags`, `scope: line|chunk|accumulated` as the match window, `maxFirings`, `cooldown`.
 * A bad value is reported naming the key and dropped; the rest of the rule still loads.
 */
export function normalizeRule(rule: SourceRule, options: { builtin?: boolean } = {}): NormalizeResult {
  const issues: RuleIssue[] = [];
  const meta = rule.meta ?? {};
  const issue = (key: string | undefined, message: string) =>
    issues.push({ rule: rule.name, path: rule.path, ...(key ? { key } : {}), message });

  // Conditions: rulebook already merged condition / ttsr_trigger / ttsrTrigger / native trigger.
  let conditionKey = "condition";
  let conditions = rule.condition?.filter((c) => c.trim() !== "");
  let format: TtsrRule["format"] = "lifecycle";
  if (!conditions || conditions.length === 0) {
    const found = pick(meta, ["condition", "ttsr_trigger", "ttsrTrigger", "trigger"]);
    if (found) {
      conditionKey = found.key;
      const list = strings(found.value);
      if (list === undefined) issue(found.key, "expected a regex string or a list of them");
      conditions = (list ?? []).filter((c) => !(found.key === "trigger" && WINDSURF_TRIGGERS.has(c)));
    }
  }
  if (meta["trigger"] !== undefined && meta["condition"] === undefined) {
    if (meta["ttsr_trigger"] === undefined && meta["ttsrTrigger"] === undefined) format = "proposal";
  }
  if (!conditions || conditions.length === 0) return { issues };
  if (format === "proposal") conditionKey = "trigger";

  let flags = "";
  if (meta["flags"] !== undefined) {
    if (typeof meta["flags"] === "string" && /^[dgimsuvy]*$/.test(meta["flags"])) flags = meta["flags"];
    else issue("flags", `expected regex flags like "i" or "im", got ${JSON.stringify(meta["flags"])}; ignored`);
  }

  // Scope tokens and the match window (the proposal spells the window `scope`).
  // Default: what the model says and does. Thinking is opt-in (`scope: thinking`): a model reasoning "I must not
  // call eval()" should not be interrupted for it.
  let scope: RuleScope = { text: true, thinking: false, tools: [{}] };
  let window: MatchWindow | undefined;
  const rawScope = meta["scope"];
  if (rawScope !== undefined) {
    const list = typeof rawScope === "string" ? splitScopeTokens(rawScope) : strings(rawScope);
    if (!list) issue("scope", "expected a string or a list of scope tokens");
    else {
      const parsed = parseScope(list);
      for (const u of parsed.unknown)
        issue("scope", `unknown token "${u}" (use text, thinking, tool, tool:<name>, tool:<name>(<glob>))`);
      window = parsed.window;
      const hasStreamTokens = parsed.scope.text || parsed.scope.thinking || parsed.scope.tools.length > 0;
      if (hasStreamTokens) scope = parsed.scope;
      else if (parsed.unknown.length > 0) scope = parsed.scope; // only unknown tokens: reaches no stream
    }
  }
  const rawWindow = meta["window"];
  if (rawWindow !== undefined) {
    if (typeof rawWindow === "string" && (WINDOWS as readonly string[]).includes(rawWindow)) {
      if (window && window !== rawWindow) issue("window", `overrides scope's "${window}"`);
      window = rawWindow as MatchWindow;
    } else issue("window", `expected line, chunk or accumulated, got ${JSON.stringify(rawWindow)}; using the default`);
  }
  window ??= format === "proposal" ? "line" : "accumulated";

  let globs = rule.globs;
  if (!globs && meta["globs"] !== undefined) {
    const g = meta["globs"];
    globs = typeof g === "string" ? g.split(",").map((s) => s.trim()) : strings(g);
    if (!globs) issue("globs", "expected a glob string or a list of globs");
  }
  globs = globs?.filter((g) => g.length > 0);

  let maxFirings: number | undefined;
  const mf = pick(meta, ["maxFirings", "max_firings"]);
  if (mf) {
    const n = numberOf(mf.value);
    if (n !== undefined && Number.isInteger(n) && n >= 1) maxFirings = n;
    else issue(mf.key, `expected a whole number >= 1, got ${JSON.stringify(mf.value)}; ignored`);
  }
  let cooldown: number | undefined;
  if (meta["cooldown"] !== undefined) {
    const n = numberOf(meta["cooldown"]);
    if (n !== undefined && n >= 0) cooldown = n;
    else issue("cooldown", `expected seconds (a number >= 0), got ${JSON.stringify(meta["cooldown"])}; ignored`);
  }
  let interrupt = true;
  if (meta["interrupt"] !== undefined) {
    const b = booleanOf(meta["interrupt"]);
    if (b === undefined) issue("interrupt", `expected true or false, got ${JSON.stringify(meta["interrupt"])}`);
    else interrupt = b;
  }

  const ttsr: TtsrRule = {
    name: rule.name,
    path: rule.path,
    content: rule.content,
    conditions: conditions.map((c) => splitLiteral(c, flags)),
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
  return { rule: ttsr, issues };
}
