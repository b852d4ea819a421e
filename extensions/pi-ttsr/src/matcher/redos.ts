import type { Report } from "scslre";
import { libs } from "./libs.ts";

/** What the load-time backtracking analysis found for a pattern that will run on the native engine. */
export interface RedosVerdict {
  /** Exponential backtracking: one adversarial line can stall the stream for minutes. */
  exponential: boolean;
  /** Polynomial backtracking: tolerable on the short, bounded windows the native engine is given if `degree` ≤ 2. */
  polynomial: boolean;
  /**
   * Estimated degree of the worst case: a failing search of n characters takes about n^degree steps (1: linear).
   * Quantifiers that trade characters with each other multiply (`\s*\s*`: 2; three of them: 3), a quantifier
   * repeated k times inside another counts k (`(?:a+){3}`: 3), and a search that moves its start over the text
   * after each failure adds one.
   */
  degree: number;
  /** What causes it, in a few words (`\s* and \s* trade characters; the search moves`). */
  cause: string;
  /** scslre's rewrite without that cause, when it has one. */
  fix?: string;
}

/**
 * Checks a pattern for super-linear backtracking (scslre, built on refa). Only patterns that the
 * automaton cannot run exactly reach V8's backtracking engine, so only those are checked.
 */
export function checkRedos(source: string, flags: string): RedosVerdict {
  try {
    const result = libs.scslre.analyse({ source, flags: flags.replace(/[gyd]/g, "") }, { maxReports: 8 });
    return verdictOf(result.reports);
  } catch {
    return { exponential: false, polynomial: false, degree: 1, cause: "" };
  }
}

/** The verdict of scslre's reports (see RedosVerdict.degree). */
export function verdictOf(reports: readonly Report[]): RedosVerdict {
  const exponential = reports.some((r) => r.exponential);
  let degree = 1;
  const causes: string[] = [];
  // Quantifiers trading characters pairwise: the largest group in which every pair trades multiplies.
  const trades = reports.filter((r) => r.type === "Trade");
  const quants = [...new Set(trades.flatMap((r) => [r.startQuant, r.endQuant]))];
  const trading = (a: unknown, b: unknown) =>
    trades.some((r) => (r.startQuant === a && r.endQuant === b) || (r.startQuant === b && r.endQuant === a));
  const group = largestGroup(quants.length, (i, j) => trading(quants[i], quants[j]));
  if (group.length >= 2) {
    degree = Math.max(degree, group.length);
    causes.push(`${group.map((i) => quants[i]!.raw).join(" and ")} trade characters`);
  }
  for (const r of reports) {
    if (r.type !== "Self") continue;
    const times = r.parentQuant.max;
    if (Number.isFinite(times) && times > degree) degree = times;
    causes.push(`${r.quant.raw} repeats inside ${r.parentQuant.raw}`);
  }
  if (reports.some((r) => r.type === "Move")) {
    degree += 1;
    causes.push("the search moves its start after each failure");
  }
  const fix = reports.find((r) => r.type !== "Move")?.fix();
  return {
    exponential,
    polynomial: reports.length > 0,
    degree: exponential ? Number.POSITIVE_INFINITY : degree,
    cause: causes.join("; "),
    ...(fix ? { fix: `/${fix.source}/${fix.flags}` } : {}),
  };
}

/** The largest set of the n items in which every pair is related (n is at most a few: scslre's reports are capped). */
function largestGroup(n: number, related: (i: number, j: number) => boolean): number[] {
  let best: number[] = [];
  const grow = (group: number[], next: number) => {
    if (group.length > best.length) best = group;
    for (let k = next; k < n; k++) if (group.every((i) => related(i, k))) grow([...group, k], k + 1);
  };
  grow([], 0);
  return best;
}
