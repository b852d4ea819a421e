import { libs } from "./libs.ts";

/** What the load-time backtracking analysis found for a pattern that will run on the native engine. */
export interface RedosVerdict {
  /** Exponential backtracking: one adversarial line can stall the stream for minutes. */
  exponential: boolean;
  /** Polynomial backtracking: tolerable on the short, bounded windows the native engine is given. */
  polynomial: boolean;
}

/**
 * Checks a pattern for super-linear backtracking (scslre, built on refa). Only patterns that the
 * automaton cannot run exactly reach V8's backtracking engine, so only those are checked.
 */
export function checkRedos(source: string, flags: string): RedosVerdict {
  try {
    const result = libs.scslre.analyse({ source, flags: flags.replace(/[gyd]/g, "") }, { maxReports: 8 });
    return { exponential: result.reports.some((r) => r.exponential), polynomial: result.reports.length > 0 };
  } catch {
    return { exponential: false, polynomial: false };
  }
}
