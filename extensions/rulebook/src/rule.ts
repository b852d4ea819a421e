import { z } from "zod";

/** Where a rule came from. Kept on every rule so `rulebook doctor` can explain precedence. */
export const RuleSourceSchema = z.object({
  /** Provider id: "native", "extra", "cursor", "windsurf", "claude", "cline", "copilot". */
  provider: z.string(),
  /** Provider priority: higher wins on a name conflict. */
  priority: z.number(),
  scope: z.enum(["project", "user"]),
  /** The rule file. */
  path: z.string(),
  /** The folder the provider scanned (the rules directory, or the `.clinerules` file itself). */
  root: z.string().optional(),
  /** Nesting: directories between cwd and a nested `.cursor/rules`, or levels above cwd for `.clinerules`. */
  level: z.number().int().nonnegative().optional(),
  /** The file's modification time: the newer of two equally specific glob rules is attached first. */
  mtimeMs: z.number().optional(),
  /** Set for a legacy single-file format (`.cursorrules`, `.windsurfrules`, `copilot-instructions.md`...). */
  legacy: z.boolean().optional(),
});
export type RuleSource = z.infer<typeof RuleSourceSchema>;

/**
 * One rule, normalized from any supported format. `name` is its identity: precedence and
 * deduplication are by name only. `meta` keeps the raw frontmatter so other packages (pi-ttsr)
 * can read their own keys without parsing the file again.
 */
export const RuleSchema = z.object({
  name: z.string().min(1),
  path: z.string(),
  /** Body with the frontmatter stripped (and truncated to `maxRuleChars` when oversized). */
  content: z.string(),
  description: z.string().optional(),
  /** Globs relative to cwd (nested rule folders are already prefixed with their directory). */
  globs: z.array(z.string()).optional(),
  alwaysApply: z.boolean().optional(),
  /** TTSR stream condition(s): `condition`, legacy `ttsr_trigger` / `ttsrTrigger`, native `trigger`. */
  condition: z.array(z.string()).optional(),
  /** True when the source format says "only when the user mentions it" (Windsurf `trigger: manual`). */
  manual: z.boolean().optional(),
  /** Set when the content was cut to the size cap. */
  truncated: z.object({ originalChars: z.number(), keptChars: z.number() }).optional(),
  source: RuleSourceSchema,
  meta: z.record(z.string(), z.unknown()),
});
export type Rule = z.infer<typeof RuleSchema>;

/** Something the user should know about: a dropped frontmatter value, a YAML error, a bad setting. */
export interface RuleWarning {
  path?: string;
  provider?: string;
  key?: string;
  message: string;
  /**
   * What kind of problem, for `doctor --json` counts: "frontmatter", "dropped-value", "glob-normalized",
   * "glob-unmatchable", "glob-too-long", "glob-combinatorial", "truncated", "encoding", "control-chars",
   * "symlink", "settings", "settings-file" (a settings file pi cannot read or parse: pi reports it in a session),
   * "provider", "activation", "size".
   */
  kind?: string;
}

/** A file that looked like a rule but did not become one, with the reason. */
export interface SkippedRule {
  path: string;
  provider: string;
  reason: string;
  /**
   * "not-a-rule" for files in a rule folder that the tool itself would not read (listed by doctor,
   * not shown as a session warning); "symlink", "binary", "limit", "unreadable", "empty", "disabled".
   */
  kind?: string;
  /** The rule's name, when the file was read and then turned off by name (`kind: "disabled"`). */
  rule?: string;
}

/** A rule that lost a name conflict, and the rule it lost to. */
export interface ShadowedRule {
  rule: Rule;
  by: Rule;
}

/** What one provider did: for `rulebook doctor`. */
export interface ProviderReport {
  id: string;
  priority: number;
  enabled: boolean;
  /** Folders or files it looked at (existing or not). */
  searched: string[];
  found: number;
  /** Files it looked at: rule files read plus files it refused before reading (links, non-rules). */
  seen?: number;
}

/** A context file pi itself loads (or skips) from a folder: `AGENTS.md`, `CLAUDE.md`. Rulebook leaves them to pi. */
export interface PiContextFile {
  path: string;
  /** pi loads the first of AGENTS.override.md, AGENTS.md, AGENTS.MD, CLAUDE.md, CLAUDE.MD in each folder, and skips the others. */
  loadedByPi: boolean;
  /** Why pi skips it, and what rulebook does about it. */
  note?: string;
  /**
   * Why pi skips it: another context file is beside it (`sibling`: a CLAUDE.md beside an AGENTS.md, which
   * `rulebook.loadClaudeMdBesideAgentsMd` can load), or cwd is in a nested git worktree with its own (`worktree`).
   */
  skippedFor?: "sibling" | "worktree";
  /** Set when rulebook loaded it as a rule (`rulebook.loadClaudeMdBesideAgentsMd`). */
  rule?: string;
}

export interface RuleLoadResult {
  /** Effective rules, in precedence order. */
  rules: Rule[];
  shadowed: ShadowedRule[];
  skipped: SkippedRule[];
  warnings: RuleWarning[];
  providers: ProviderReport[];
  stats: { files: number; cacheHits: number; ms: number };
  /** pi's own context files (AGENTS.md / CLAUDE.md) in the agent dir, cwd and its ancestors. */
  contextFiles?: PiContextFile[];
  /**
   * Rule names the settings turn off (`rulebook.disabledRules` and `ttsr.disabledRules`): pi-ttsr drops its shipped
   * rules of these names too, so one list turns a rule off everywhere.
   */
  disabledRules?: string[];
}
