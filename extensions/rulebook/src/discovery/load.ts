import { join, resolve } from "node:path";
import { homeDir, noteReadError, resolveAgentDir } from "@pi-rails/agent-core/kit";
import { dedupeByName } from "../precedence/dedupe.ts";
import { orderProviders } from "../precedence/order.ts";
import type { PiContextFile, ProviderReport, Rule, RuleLoadResult, SkippedRule } from "../rule.ts";
import { disabledRuleReasons } from "../settings/disabled.ts";
import { readRulebookSettings } from "../settings/read.ts";
import type { RulebookSettings } from "../settings/schema.ts";
import { piContextFiles } from "./context-files.ts";
import { resolveExtraDir } from "./extra.ts";
import { createLinkPolicy, realOrUndefined } from "./links.ts";
import { defaultParseStore, loadParseStore, saveParseStore } from "./parse-store.ts";
import { type DiscoveryContext, emptyOutput, type ProviderOutput, type RuleProvider } from "./provider.ts";
import { PROVIDERS } from "./registry.ts";

export interface LoadRulesOptions {
  cwd: string;
  /** Default the kit's `homeDir()` (`HOME`, `USERPROFILE` on Windows): where `~/.cursor`, `~/.claude` ... live. */
  home?: string;
  /**
   * Default pi's agent dir for that home (`PI_CODING_AGENT_DIR`, else `<home>/.pi/agent`): user rules in
   * `<agentDir>/rules`, settings in `<agentDir>/settings.json`.
   */
  agentDir?: string;
  /**
   * Already-parsed settings. When omitted they are read from pi's settings files (user, then project),
   * so every caller (extension, CLI, pi-ttsr) sees the same rules; their errors become warnings.
   */
  settings?: RulebookSettings;
  /** Replace the provider list (tests). */
  providers?: readonly RuleProvider[];
  /**
   * The parse store file (parses kept on disk across sessions), or `false` for none. Default:
   * `defaultParseStore(agentDir, cwd)`.
   */
  parseStore?: string | false;
  /**
   * Names from `ttsr.disabledRules` (the reference's key), dropped like `rulebook.disabledRules`. Read from pi's
   * settings files with the rest when `settings` is omitted; pass `readRulebookSettings(...).ttsrDisabledRules`.
   */
  ttsrDisabledRules?: readonly string[];
  /**
   * pi's project trust (`ctx.isProjectTrusted()`), used when `settings` is omitted: `false` leaves the project's
   * settings file out, as pi does (see `readRulebookSettings`). Default `true`.
   */
  projectTrusted?: boolean;
}

/**
 * Discover every rule, normalize it, and resolve precedence: the one entry point shared by the
 * extension, the CLI and pi-ttsr. Reads each file at most once per process while it is unchanged
 * (a cache on `globalThis`). Never throws for a bad rule: it is skipped or warned about instead.
 */
export async function loadRules(options: LoadRulesOptions): Promise<RuleLoadResult> {
  const started = performance.now();
  const home = options.home ?? homeDir();
  // pi's agent dir for that home: PI_CODING_AGENT_DIR still wins, as in pi.
  const agentDir = options.agentDir ?? resolveAgentDir({ ...process.env, HOME: home, USERPROFILE: home });
  const warnings: RuleLoadResult["warnings"] = [];
  let settings = options.settings;
  let ttsrDisabled = options.ttsrDisabledRules ?? [];
  if (!settings) {
    const read = await readRulebookSettings(options.cwd, agentDir, { projectTrusted: options.projectTrusted });
    settings = read.settings;
    ttsrDisabled = options.ttsrDisabledRules ?? read.ttsrDisabledRules;
    warnings.push(...read.issues);
  }
  const userRoots = [
    join(home, ".cursor", "rules"),
    join(home, ".claude", "rules"),
    join(agentDir, "rules"),
    join(home, ".codeium", "windsurf", "memories"),
  ];
  const named = [...settings.allowedLinkRoots, ...settings.extraDirs].map((d) => resolveExtraDir(d, options.cwd, home));
  const links = createLinkPolicy(options.cwd, home, userRoots, named);
  const store = options.parseStore ?? defaultParseStore(agentDir, options.cwd);
  loadParseStore(store);
  const ctx: DiscoveryContext = {
    cwd: options.cwd,
    home,
    agentDir,
    settings,
    links,
    parsedPaths: new Set(),
    userRoots: realUserRoots(userRoots),
  };
  const providers = orderProviders(options.providers ?? PROVIDERS);
  const disabledProviders = new Set<string>(settings.disabledProviders);

  const outputs = await Promise.all(
    providers.map(async (provider): Promise<ProviderOutput | undefined> => {
      if (disabledProviders.has(provider.id)) return undefined;
      try {
        return await provider.load(ctx);
      } catch (error) {
        noteReadError(error);
        const message = `provider failed: ${(error as Error).message}`;
        return { ...emptyOutput(), warnings: [{ provider: provider.id, kind: "provider", message }] };
      }
    }),
  );

  const reports: ProviderReport[] = [];
  const skipped: SkippedRule[] = [];
  const candidates: Rule[] = [];
  const disabledRules = disabledRuleReasons(settings.disabledRules, ttsrDisabled);
  let files = 0;
  let cacheHits = 0;
  providers.forEach((provider, i) => {
    const out = outputs[i];
    reports.push({
      id: provider.id,
      priority: provider.priority,
      enabled: out !== undefined,
      searched: out?.searched ?? [],
      found: out?.rules.length ?? 0,
      seen: out ? (out.seen ?? out.files) : 0,
    });
    if (!out) return;
    files += out.files;
    cacheHits += out.cacheHits;
    skipped.push(...out.skipped);
    warnings.push(...out.warnings);
    for (const rule of out.rules) {
      const disabled = disabledRules.get(rule.name);
      if (disabled) {
        skipped.push({ path: rule.path, provider: provider.id, kind: "disabled", reason: disabled, rule: rule.name });
        continue;
      }
      // Providers build rules from typed code (the tests hold every corpus rule to `RuleSchema`); the one value
      // file data alone can break is the name, and checking it here keeps zod off the start-up path.
      if (rule.name.trim() === "") {
        skipped.push({ path: rule.path, provider: provider.id, reason: "invalid rule: its name is empty" });
        continue;
      }
      candidates.push(rule);
    }
  });
  const { rules, shadowed } = dedupeByName(candidates);
  saveParseStore(store, ctx.parsedPaths ?? []);
  return {
    rules,
    shadowed,
    skipped,
    warnings,
    providers: reports,
    stats: { files, cacheHits, ms: performance.now() - started },
    contextFiles: contextFilesWithRules(options.cwd, agentDir, rules),
    disabledRules: [...disabledRules.keys()],
  };
}

/**
 * The real paths of the user's own rule folders. Run from the home folder (or above it), a project folder
 * (`<cwd>/.claude/rules`, a nested `.cursor/rules`) can be one of them: it is then read once, as the user's.
 */
function realUserRoots(dirs: readonly string[]): Set<string> {
  return new Set(dirs.map((dir) => realOrUndefined(dir) ?? resolve(dir)));
}

/** pi's context files, each marked with the rule rulebook made of it (when one did). */
function contextFilesWithRules(cwd: string, agentDir: string, rules: readonly Rule[]): PiContextFile[] {
  try {
    return piContextFiles(cwd, agentDir).map((file) => {
      const rule = rules.find((r) => r.path === file.path);
      return rule ? { ...file, rule: rule.name } : file;
    });
  } catch (error) {
    noteReadError(error);
    return [];
  }
}
