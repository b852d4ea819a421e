import { join } from "node:path";
import { collectSingleFiles, loadRuleFolder, type Normalizer, rejectUnless } from "./collect.ts";
import { CONDITION_KEYS, readCondition, readGlobs, readString } from "./fields.ts";
import { mergeOutputs, type RuleProvider } from "./provider.ts";

const SUFFIX = /\.instructions\.md$/;
const EVERYTHING = new Set(["**", "**/*", "*"]);
const COPILOT_INSTRUCTIONS = { name: "copilot-instructions", scope: "project", legacy: true } as const;

/**
 * GitHub Copilot: `applyTo` (comma-separated globs) scopes the instructions; `applyTo: "**"` means
 * every request, so it is always-apply. Without `applyTo` Copilot applies the file only when attached
 * by hand: with a `description` it is offered by description, otherwise it is manual.
 */
export const normalizeCopilot: Normalizer = (f) => {
  const applyTo = readGlobs(f, "applyTo");
  const description = readString(f, "description");
  const condition = readCondition(f, CONDITION_KEYS);
  if (applyTo?.some((g) => EVERYTHING.has(g))) return { description, alwaysApply: true, condition };
  return { description, globs: applyTo, condition, manual: !applyTo && !description && !condition };
};

/** Copilot: `<cwd>/.github/copilot-instructions.md` (always applied), then `<cwd>/.github/instructions/**\/*.instructions.md`. */
export const copilotProvider: RuleProvider = {
  id: "copilot",
  priority: 40,
  description:
    "GitHub Copilot: <cwd>/.github/copilot-instructions.md, <cwd>/.github/instructions/**/*.instructions.md (applyTo)",
  async load(ctx) {
    const legacyFile = { path: join(ctx.cwd, ".github", "copilot-instructions.md"), ...COPILOT_INSTRUCTIONS };
    const legacy = await collectSingleFiles(copilotProvider, [legacyFile], normalizeCopilot, ctx);
    const dir = join(ctx.cwd, ".github", "instructions");
    const folder = {
      dir,
      scope: "project" as const,
      suffix: SUFFIX,
      preferred: [".instructions.md"],
      recursive: true,
      reject: rejectUnless("Copilot reads only *.instructions.md in .github/instructions"),
    };
    return mergeOutputs([legacy, await loadRuleFolder(copilotProvider, folder, normalizeCopilot, ctx)]);
  },
};
