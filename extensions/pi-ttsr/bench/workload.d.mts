/** Types of workload.mjs, for the tests that use the bench's rules. */
export interface BenchSpec {
  source: string;
  flags: string;
  window: "accumulated";
}
export function benchRules(): BenchSpec[];
export function benchText(size: number, seed?: number): string;
