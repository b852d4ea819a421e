import { basename, isAbsolute } from "node:path";
import { relativeInside } from "@pi-rails/agent-core/kit";

/** Where paths are shown from: the project, and the user's home. */
export interface PathBase {
  cwd: string;
  home: string;
}

function inside(base: string, path: string): string | undefined {
  const rel = relativeInside(base, path);
  return rel ? rel.replaceAll("\\", "/") : undefined;
}

/**
 * How the interrupt and reminders name a rule file to the model: relative to the project, `~/...` under the
 * user's home, `pi-ttsr/rules/<file>` for a builtin, else the file name alone. Never an absolute path: the
 * text goes to the provider, and an absolute path tells it the user's name and folder layout.
 */
export function rulePathForModel(rule: { path: string; builtin: boolean }, base: PathBase): string {
  if (rule.builtin) return `pi-ttsr/rules/${basename(rule.path)}`;
  if (!isAbsolute(rule.path)) return rule.path.replaceAll("\\", "/");
  const project = inside(base.cwd, rule.path);
  if (project) return project;
  const home = inside(base.home, rule.path);
  if (home) return `~/${home}`;
  return basename(rule.path);
}
