import { basename, join, resolve } from "node:path";
import { isInside } from "@pi-rails/agent-core/kit";
import { collectSingleFiles, loadRuleFolder, type Normalizer, rejectUnless } from "./collect.ts";
import { contextRuleName, piContextFiles } from "./context-files.ts";
import { CONDITION_KEYS, drop, has, readBoolean, readCondition, readGlobs, readString } from "./fields.ts";
import { type DiscoveryContext, mergeOutputs, type ProviderOutput, type RuleProvider } from "./provider.ts";

const SUFFIX = /\.md$/;

/**
 * Claude Code: `paths` (string or list) scope a rule to matching files; a rule without `paths` is
 * loaded at every session start, so it is always-apply (unless it says otherwise).
 */
export const normalizeClaude: Normalizer = (f) => {
  // a comma inside one `paths` element is part of the glob, not a separator
  const paths = readGlobs(f, "paths", { splitElements: false });
  if (paths && has(f, "globs")) drop(f, "globs", f.data.globs, "nothing: paths already sets the globs");
  // `globs` (the Cursor key, common in rules ported to Claude Code) scopes the rule like `paths`
  const globs = paths ?? (has(f, "paths") ? undefined : readGlobs(f, "globs"));
  const description = readString(f, "description");
  const condition = readCondition(f, CONDITION_KEYS);
  const explicit = readBoolean(f, "alwaysApply");
  const scoped = globs !== undefined || has(f, "paths") || has(f, "globs");
  const alwaysApply = explicit ?? (scoped ? undefined : true);
  return { description, globs, alwaysApply, condition };
};

function loadDir(dir: string, scope: "project" | "user", ctx: DiscoveryContext): Promise<ProviderOutput> {
  const reject = rejectUnless("Claude Code reads only *.md files in .claude/rules");
  return loadRuleFolder(
    claudeProvider,
    { dir, scope, suffix: SUFFIX, preferred: [".md"], recursive: true, reject },
    normalizeClaude,
    ctx,
  );
}

/**
 * `rulebook.loadClaudeMdBesideAgentsMd`: each CLAUDE.md pi skips because an AGENTS.md or AGENTS.override.md is beside it,
 * as an always-apply rule (not one pi skips for a worktree's own copy: that would apply the same file twice).
 */
function loadSkippedClaudeMd(ctx: DiscoveryContext): Promise<ProviderOutput> {
  const skipped = piContextFiles(ctx.cwd, ctx.agentDir).filter(
    (f) => f.skippedFor === "sibling" && /^CLAUDE\.(md|MD)$/.test(basename(f.path)),
  );
  const files = skipped.map(({ path }) => ({
    path,
    name: contextRuleName(ctx.cwd, path),
    scope: isInside(resolve(ctx.cwd), resolve(path)) ? ("project" as const) : ("user" as const),
    legacy: true,
  }));
  return collectSingleFiles(claudeProvider, files, normalizeClaude, ctx);
}

/** Claude Code: `<cwd>/.claude/rules/**\/*.md`, then `~/.claude/rules/**\/*.md`. */
export const claudeProvider: RuleProvider = {
  id: "claude",
  priority: 50,
  description: "Claude Code: <cwd>/.claude/rules/**/*.md, ~/.claude/rules/**/*.md",
  async load(ctx) {
    const projectDir = join(ctx.cwd, ".claude", "rules");
    const userDir = join(ctx.home, ".claude", "rules");
    const parts = await Promise.all([
      loadDir(projectDir, "project", ctx),
      loadDir(userDir, "user", ctx),
      ...(ctx.settings.loadClaudeMdBesideAgentsMd ? [loadSkippedClaudeMd(ctx)] : []),
    ]);
    return mergeOutputs(parts);
  },
};
