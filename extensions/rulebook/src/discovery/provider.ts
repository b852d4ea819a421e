import type { Rule, RuleWarning, SkippedRule } from "../rule.ts";
import type { RulebookSettings } from "../settings/schema.ts";
import type { LinkScope } from "./fs.ts";
import { type LinkPolicy, realOrUndefined } from "./links.ts";

/** What every provider gets: where to look, and the settings that shape a rule (size cap). */
export interface DiscoveryContext {
  cwd: string;
  home: string;
  agentDir: string;
  settings: RulebookSettings;
  /** Where symlinked rule files may point; absent = links are followed anywhere (library callers, tests). */
  links?: LinkPolicy;
  /** Every file whose parse this load used, for the parse store. */
  parsedPaths?: Set<string>;
  /**
   * Real paths of the user's own rule folders (`~/.claude/rules`, `~/.cursor/rules`, `<agentDir>/rules`...). A
   * project folder that is one of them (pi run from the home folder) is not read as project rules: the user scope
   * reads it, once.
   */
  userRoots?: ReadonlySet<string>;
}

/** True when `dir`, a project rule folder, is really one of the user's own rule folders. */
export function isUserRoot(ctx: DiscoveryContext, dir: string): boolean {
  if (!ctx.userRoots?.size) return false;
  const real = realOrUndefined(dir);
  return real !== undefined && ctx.userRoots.has(real);
}

/** The link scope for a root of `scope`: project roots are checked from cwd, user roots from home. */
export function linkScope(ctx: DiscoveryContext, scope: "project" | "user"): LinkScope | undefined {
  if (!ctx.links) return undefined;
  return { policy: ctx.links, base: scope === "project" ? ctx.cwd : ctx.home, trustRoot: scope === "user" };
}

/** A provider's rules in its own, sorted order, plus everything it refused and why. */
export interface ProviderOutput {
  rules: Rule[];
  skipped: SkippedRule[];
  warnings: RuleWarning[];
  searched: string[];
  files: number;
  cacheHits: number;
  /** Files looked at, including those refused before reading; defaults to `files + skipped` when absent. */
  seen?: number;
}

/** One rule format. `priority` decides name conflicts across providers (higher wins). */
export interface RuleProvider {
  id: string;
  priority: number;
  /** One line for `rulebook doctor` and the README. */
  description: string;
  load(ctx: DiscoveryContext): Promise<ProviderOutput>;
}

export function emptyOutput(): ProviderOutput {
  return { rules: [], skipped: [], warnings: [], searched: [], files: 0, cacheHits: 0 };
}

export function mergeOutputs(outputs: ProviderOutput[]): ProviderOutput {
  const out = emptyOutput();
  for (const o of outputs) {
    out.rules.push(...o.rules);
    out.skipped.push(...o.skipped);
    out.warnings.push(...o.warnings);
    out.searched.push(...o.searched);
    out.files += o.files;
    out.seen = (out.seen ?? 0) + (o.seen ?? o.files);
    out.cacheHits += o.cacheHits;
  }
  return out;
}
