import type { Rule } from "@pi-rails/rulebook/discovery";
import type { MatchWindow } from "../matcher/compile.ts";

/** The rule shape rulebook hands us (one parse per file, shared cache). Builtins are shaped the same. */
export type SourceRule = Rule;

/** Which streams a rule watches. */
export interface RuleScope {
  text: boolean;
  thinking: boolean;
  /** Tool streams: `tool` (any tool), `tool:<name>`, `tool:<name>(<glob>)`. Empty: no tool stream. */
  tools: ToolScope[];
}

export interface ToolScope {
  /** Tool name; undefined means any tool. */
  name?: string;
  /** File-path glob the call's path(s) must match. */
  glob?: string;
}

export type StreamSource = "text" | "thinking" | "tool";

/** Which matches abort the stream: all, prose (text/thinking) only, tool arguments only, or none. */
export type InterruptMode = "always" | "prose-only" | "tool-only" | "never";
export const INTERRUPT_MODES: readonly InterruptMode[] = ["always", "prose-only", "tool-only", "never"];

/** A TTSR rule after normalization: canonical keys only (see the README's aliases table). */
export interface TtsrRule {
  name: string;
  /** The rule file (or `builtin:<name>`). */
  path: string;
  /** Injected on a match. */
  content: string;
  description?: string;
  conditions: Array<{ source: string; flags: string }>;
  /** The frontmatter key the conditions came from (for messages). */
  conditionKey: string;
  window: MatchWindow;
  scope: RuleScope;
  /** File-path gate: the match context must include a path matching one of these. */
  globs?: string[];
  /** Per-session cap (unset: the repeat mode decides). */
  maxFirings?: number;
  /** Minimum seconds between two firings. */
  cooldown?: number;
  /** `false`: never interrupt, always deliver as a reminder. Default true (subject to `interruptMode`). */
  interrupt: boolean;
  /** The rule's own `interruptMode` (the reference's key); overrides the `ttsr.interruptMode` setting. */
  interruptMode?: InterruptMode;
  /**
   * How the interrupt and reminders name the rule file to the model: relative to the project, `~/...` for
   * user rules, `pi-ttsr/rules/...` for builtins; never an absolute path (it would leak the user's home).
   */
  displayPath?: string;
  /** Frontmatter keys pi-ttsr and rulebook do not read (shown by `ttsr list`, never silently dropped). */
  unknownKeys?: string[];
  /** Which spelling the file used, for `ttsr list`. */
  format: "lifecycle" | "proposal";
  builtin: boolean;
  /** Provider and scope of the file, from rulebook. */
  origin: { provider: string; scope: string; path: string };
}

/** A problem with one rule file, always naming the file and (when it is about one) the key. */
export interface RuleIssue {
  rule?: string;
  path: string;
  key?: string;
  message: string;
  /** The rule is not loaded for this reason (`ttsr list` shows it under "not loaded", not again as a warning). */
  notLoaded?: boolean;
}

/** `<path> (<key>): <message>`; a message that already names its file (rulebook's `skipped <path>: ...`) as is. */
export function formatIssue(issue: RuleIssue): string {
  if (!issue.key && issue.message.includes(issue.path)) return issue.message;
  const where = issue.key ? `${issue.path} (${issue.key})` : issue.path;
  return `${where}: ${issue.message}`;
}
