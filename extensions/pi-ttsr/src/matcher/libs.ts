import { createRequire } from "node:module";

type Refa = typeof import("refa");
type Analysis = typeof import("regexp-ast-analysis");
type Scslre = typeof import("scslre");
type Regexpp = typeof import("@eslint-community/regexpp");

const require = createRequire(import.meta.url);
let refa: Refa | undefined;
let analysis: Analysis | undefined;
let scslre: Scslre | undefined;
let regexpp: Regexpp | undefined;

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
  /** The parser alone (a few ms to load, against refa's 20-30): what a deferred pattern is screened with. */
  get regexpp(): Regexpp {
    regexpp ??= require("@eslint-community/regexpp") as Regexpp;
    return regexpp;
  },
};
