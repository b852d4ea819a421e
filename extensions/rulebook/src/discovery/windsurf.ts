import { join } from "node:path";
import { collectRules, folderSpecs, type Normalizer, type RuleFields, rejectUnless, singleFile } from "./collect.ts";
import { CONDITION_KEYS, drop, has, readBoolean, readCondition, readGlobs, readString } from "./fields.ts";
import type { RuleProvider } from "./provider.ts";

const SUFFIX = /\.md$/;
export const WINDSURF_TRIGGERS = ["always_on", "manual", "model_decision", "glob"] as const;

/**
 * Windsurf's `trigger` is its activation mode (not a TTSR condition): `always_on` becomes
 * alwaysApply, `model_decision` relies on `description`, `glob` on `globs`, `manual` is only
 * applied when mentioned. Without `trigger`, `alwaysApply` / `description` / `globs` are read as-is.
 */
export const normalizeWindsurf: Normalizer = (f, spec) => {
  const fields: RuleFields = {
    description: readString(f, "description"),
    globs: readGlobs(f, "globs"),
    condition: readCondition(f, CONDITION_KEYS),
  };
  const global = spec.name === "global_rules" && spec.scope === "user";
  if (!has(f, "trigger")) {
    fields.alwaysApply = readBoolean(f, "alwaysApply") ?? (global ? true : undefined);
    return fields;
  }
  const trigger = f.data.trigger;
  if (has(f, "alwaysApply")) drop(f, "alwaysApply", f.data.alwaysApply, "nothing: trigger decides activation");
  switch (trigger) {
    case "always_on":
      fields.alwaysApply = true;
      break;
    case "manual":
      fields.manual = true;
      break;
    case "model_decision":
    case "glob": {
      const [needs, what] = trigger === "glob" ? [fields.globs, "globs"] : [fields.description, "a description"];
      const message = `trigger: ${trigger} needs ${what}, and this rule has none`;
      if (!needs) f.warnings.push({ path: f.path, provider: f.provider, key: "trigger", message });
      break;
    }
    default:
      drop(f, "trigger", trigger, `one of ${WINDSURF_TRIGGERS.join(", ")}`);
      if (global) fields.alwaysApply = true;
  }
  return fields;
};

/**
 * Windsurf: `<cwd>/.windsurf/rules/**\/*.md` (or `.windsurf/rules` as one file), legacy
 * `<cwd>/.windsurfrules`, then `~/.codeium/windsurf/memories/global_rules.md`.
 */
export const windsurfProvider: RuleProvider = {
  id: "windsurf",
  priority: 50,
  description:
    "Windsurf: <cwd>/.windsurf/rules/**/*.md (or that path as one file), <cwd>/.windsurfrules, ~/.codeium/windsurf/memories/global_rules.md",
  async load(ctx) {
    const dir = join(ctx.cwd, ".windsurf", "rules");
    const legacyFile = join(ctx.cwd, ".windsurfrules");
    const globalFile = join(ctx.home, ".codeium", "windsurf", "memories", "global_rules.md");
    const reject = rejectUnless("Windsurf reads only *.md in .windsurf/rules");
    const folder = { dir, scope: "project", suffix: SUFFIX, preferred: [".md"], recursive: true, reject } as const;
    // not loadRuleFolder: the folder's files and the single files below are collected as one
    const { specs, problems } = await folderSpecs(folder, ctx);
    const singles = await Promise.all([
      singleFile(ctx, dir, { name: "windsurf-rules", scope: "project", legacy: true }),
      singleFile(ctx, legacyFile, { name: "windsurfrules", scope: "project", legacy: true }),
      singleFile(ctx, globalFile, { name: "global_rules", scope: "user" }),
    ]);
    for (const single of singles) {
      if (single.spec) specs.push(single.spec);
      if (single.problem) problems.push(single.problem);
    }
    const out = await collectRules(windsurfProvider, specs, problems, normalizeWindsurf, ctx);
    out.searched.push(dir, legacyFile, globalFile);
    return out;
  },
};
