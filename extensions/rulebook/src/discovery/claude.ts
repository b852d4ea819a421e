import { join } from "node:path";
import { loadRuleFolder, type Normalizer } from "./collect.ts";
import { CONDITION_KEYS, readBoolean, readCondition, readGlobs, readString } from "./fields.ts";
import { type DiscoveryContext, mergeOutputs, type ProviderOutput, type RuleProvider } from "./provider.ts";

const SUFFIX = /\.md$/;

/**
 * Claude Code: `paths` (string or list) scope a rule to matching files; a rule without `paths` is
 * loaded at every session start, so it is always-apply (unless it says otherwise).
 */
export const normalizeClaude: Normalizer = (f) => {
  const globs = readGlobs(f, "paths");
  const description = readString(f, "description");
  const condition = readCondition(f, CONDITION_KEYS);
  const explicit = readBoolean(f, "alwaysApply");
  const alwaysApply = explicit ?? (globs || Object.hasOwn(f.data, "paths") ? undefined : true);
  return { description, globs, alwaysApply, condition };
};

function loadDir(dir: string, scope: "project" | "user", ctx: DiscoveryContext): Promise<ProviderOutput> {
  return loadRuleFolder(
    claudeProvider,
    { dir, scope, suffix: SUFFIX, preferred: [".md"], recursive: true },
    normalizeClaude,
    ctx,
  );
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
      ...(userDir === projectDir ? [] : [loadDir(userDir, "user", ctx)]),
    ]);
    return mergeOutputs(parts);
  },
};
