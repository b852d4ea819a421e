import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Rule } from "../rule.ts";

/** pi-ttsr's own answer for the stream rules, and which pi-ttsr gave it. */
export interface TtsrJudgement {
  /** `pi-ttsr 0.1.0 (<folder>)`. */
  by: string;
  /** Rule name -> why pi-ttsr would not watch it; a stream rule not in it is watched. */
  problems: Map<string, string>;
}

/** pi-ttsr's package; not a dependency of rulebook (pi-ttsr depends on rulebook), looked up at run time. */
const TTSR_PACKAGE = "@pi-rails/pi-ttsr";

/**
 * Asks the pi-ttsr installed next to rulebook (`pi install` puts both in `<agent dir>/npm/node_modules`, `npm i -g`
 * in one global folder) which stream rules it would not watch, and why: the CLI then gives the answer a session acts
 * on, also for patterns only pi-ttsr's compiler refuses. Undefined when there is no such pi-ttsr (or an older one):
 * rulebook's own check of the conditions applies.
 */
export async function askInstalledTtsr(rules: readonly Rule[]): Promise<TtsrJudgement | undefined> {
  let lib: { streamRuleProblems?: unknown };
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve(`${TTSR_PACKAGE}/package.json`);
    lib = (await import(TTSR_PACKAGE)) as { streamRuleProblems?: unknown };
  } catch {
    return undefined;
  }
  if (typeof lib.streamRuleProblems !== "function") return undefined;
  const judge = lib.streamRuleProblems as (rules: readonly Rule[]) => Map<string, string>;
  const version = (JSON.parse(readFileSync(manifest, "utf8")) as { version?: string }).version ?? "?";
  const problems = judge(rules.filter((r) => r.condition?.length));
  return { by: `pi-ttsr ${version} (${manifest.replace(/[\\/]package\.json$/, "")})`, problems };
}
