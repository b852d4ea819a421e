import { resolve } from "node:path";
import { isInside } from "@pi-rails/agent-core/kit";
import { loadNativeDirs } from "./native.ts";
import type { RuleProvider } from "./provider.ts";

/** Expand `~/` and resolve against cwd. */
export function resolveExtraDir(dir: string, cwd: string, home: string): string {
  if (dir === "~") return home;
  if (dir.startsWith("~/")) return resolve(home, dir.slice(2));
  return resolve(cwd, dir);
}

/** Folders named in `rulebook.extraDirs`, read as pi-format rules, after the native ones. */
export const extraProvider: RuleProvider = {
  id: "extra",
  priority: 100,
  description: "settings rulebook.extraDirs: *.{md,mdc} in each folder, pi format",
  load: (ctx) =>
    loadNativeDirs(
      extraProvider,
      ctx.settings.extraDirs.map((d) => {
        const dir = resolveExtraDir(d, ctx.cwd, ctx.home);
        return { dir, scope: isInside(ctx.cwd, dir) ? ("project" as const) : ("user" as const) };
      }),
      ctx,
    ),
};
