import { createRequire } from "node:module";
import type { Minimatch } from "minimatch";

const require = createRequire(import.meta.url);
let minimatch: typeof import("minimatch") | undefined;

/**
 * A rule's file glob, compiled on the first path it is asked about: minimatch then loads only once a tool call
 * names a path, not at every session start. A glob without a slash matches the file name anywhere (like
 * .gitignore and the reference). Globs are checked at load (`checkRuleGlob`), so compiling cannot fail later.
 */
export class LazyGlob {
  private compiled: Minimatch | undefined;

  constructor(readonly glob: string) {}

  match(path: string): boolean {
    if (!this.compiled) {
      minimatch ??= require("minimatch") as typeof import("minimatch");
      this.compiled = new minimatch.Minimatch(this.glob, {
        dot: true,
        matchBase: !this.glob.includes("/"),
        nocomment: true,
      });
    }
    return this.compiled.match(path);
  }
}
