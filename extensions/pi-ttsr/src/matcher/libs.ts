import { createRequire } from "node:module";

type Refa = typeof import("refa");
type Analysis = typeof import("regexp-ast-analysis");
type Scslre = typeof import("scslre");

const require = createRequire(import.meta.url);
let refa: Refa | undefined;
let analysis: Analysis | undefined;
let scslre: Scslre | undefined;

/**
 * The regex libraries, loaded on first use (synchronously: they are CommonJS). A rule set read from the
 * compile cache never loads them, which is most of pi-ttsr's start-up cost.
 */
export const libs = {
  get refa(): Refa {
    refa ??= require("refa") as Refa;
    return refa;
  },
  get analysis(): Analysis {
    analysis ??= require("regexp-ast-analysis") as Analysis;
    return analysis;
  },
  get scslre(): Scslre {
    scslre ??= require("scslre") as Scslre;
    return scslre;
  },
};
