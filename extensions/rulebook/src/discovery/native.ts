import { join, resolve } from "node:path";
import { loadRuleFolder, type Normalizer, type ProviderInfo, rejectUnless } from "./collect.ts";
import { has, NATIVE_CONDITION_KEYS, readBoolean, readCondition, readGlobs, readString } from "./fields.ts";
import { type DiscoveryContext, mergeOutputs, type ProviderOutput, type RuleProvider } from "./provider.ts";
import { normalizeWindsurf, WINDSURF_TRIGGERS } from "./windsurf.ts";

const SUFFIX = /\.(md|mdc)$/;

/** A Windsurf rule copied into pi's folder: its `trigger` is one of Windsurf's activation words, not a regex. */
function isWindsurfActivation(trigger: unknown): boolean {
  return typeof trigger === "string" && (WINDSURF_TRIGGERS as readonly string[]).includes(trigger);
}

/**
 * pi's own format: `description`, `globs`, `alwaysApply` (any boolean), `condition` / `trigger` for TTSR. A
 * `trigger` that is a Windsurf activation word (`always_on`, `model_decision`, `glob`, `manual`) keeps Windsurf's
 * meaning, so a rule copied over from `.windsurf/rules` is not turned into a stream regex that nobody delivers.
 */
export const normalizeNative: Normalizer = (f, spec) => {
  if (has(f, "trigger") && isWindsurfActivation(f.data.trigger)) return normalizeWindsurf(f, spec);
  return {
    description: readString(f, "description"),
    globs: readGlobs(f, "globs"),
    alwaysApply: readBoolean(f, "alwaysApply"),
    condition: readCondition(f, NATIVE_CONDITION_KEYS),
  };
};

/** Load pi-format rules from folders, each `*.md` / `*.mdc` directly inside it. */
export async function loadNativeDirs(
  provider: ProviderInfo,
  dirs: readonly { dir: string; scope: "project" | "user" }[],
  ctx: DiscoveryContext,
): Promise<ProviderOutput> {
  const seen = new Set<string>();
  const outputs = await Promise.all(
    dirs.map(async ({ dir, scope }) => {
      const key = resolve(dir);
      if (seen.has(key)) return { ...mergeOutputs([]), searched: [dir] };
      seen.add(key);
      return loadRuleFolder(
        provider,
        {
          dir,
          scope,
          suffix: SUFFIX,
          preferred: [".md", ".mdc"],
          recursive: false,
          reject: rejectUnless("pi reads only *.md and *.mdc directly in its rules folder"),
        },
        normalizeNative,
        ctx,
      );
    }),
  );
  return mergeOutputs(outputs);
}

/** Native pi rules: project `.pi/rules` first, then the user's `<agentDir>/rules`. */
export const nativeProvider: RuleProvider = {
  id: "native",
  priority: 100,
  description: "pi: <cwd>/.pi/rules/*.{md,mdc}, <agentDir>/rules/*.{md,mdc}",
  load: (ctx) =>
    loadNativeDirs(
      nativeProvider,
      [
        { dir: join(ctx.cwd, ".pi", "rules"), scope: "project" },
        { dir: join(ctx.agentDir, "rules"), scope: "user" },
      ],
      ctx,
    ),
};
