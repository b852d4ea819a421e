import {
  type Api,
  CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS,
  evaluateCacheWarming,
  type Model,
} from "@earendil-works/pi-ai";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chooseWarmOrPrune, MIN_EXPECTED_SAVINGS, type WarmingFigures } from "./warming.ts";

/** pi's own figures for a refresh of a `promptTokens` prompt on `model` (pi-ai's `evaluateCacheWarming`). */
function piDecision(model: Model<Api>, promptTokens: number, phase: "idle" | "streaming"): WarmingFigures {
  const { warmCost, missCost, continuationProbability, action } = evaluateCacheWarming(model, promptTokens, phase);
  return { warmCost, missCost, continuationProbability, action };
}

const model = (provider: string, id: string) => {
  const found = getBuiltinModel(provider as never, id as never) as Model<Api> | undefined;
  if (!found) throw new Error(`pi-ai has no ${provider}/${id}`);
  return found;
};

/** Figures as pi makes them: a refresh reads the prefix, a miss writes it (pi's rule decides `action`). */
const figures = fc
  .record({
    tokens: fc.integer({ min: 1, max: 2_000_000 }),
    read: fc.double({ min: 0, max: 20, noNaN: true }),
    write: fc.double({ min: 0, max: 40, noNaN: true }),
    p: fc.constantFrom(0.15, 1),
  })
  .map(({ tokens, read, write, p }): WarmingFigures & { promptTokens: number } => {
    const warmCost = (tokens * read) / 1e6;
    const missCost = Math.max(0, (tokens * write) / 1e6 - warmCost);
    const action = p * missCost - warmCost >= MIN_EXPECTED_SAVINGS ? "warm" : "stop";
    return { warmCost, missCost, continuationProbability: p, action, promptTokens: tokens };
  });

describe("chooseWarmOrPrune", () => {
  it("uses pi's bar for a refresh", () => {
    expect(MIN_EXPECTED_SAVINGS).toBe(CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS);
  });

  it("with nothing to prune, is pi's own decision and answers nothing", () => {
    fc.assert(
      fc.property(figures, (pi) => {
        const choice = chooseWarmOrPrune(pi, { promptTokens: pi.promptTokens, prunableTokens: 0 });
        expect(choice.chosen).toBe(pi.action === "warm" ? "warm" : "prune");
        expect(choice.answer).toBeUndefined();
        expect(choice.savingsVsPrune).toBeCloseTo(choice.savingsVsMiss, 12);
      }),
    );
  });

  it("never warms when pi stops, stops only a refresh pi wants, and prunes more readily the more a prune takes", () => {
    fc.assert(
      fc.property(
        figures,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (pi, a, b) => {
          const [less, more] = [Math.min(a, b), Math.max(a, b)].map((share) =>
            chooseWarmOrPrune(pi, { promptTokens: pi.promptTokens, prunableTokens: share * pi.promptTokens }),
          ) as [ReturnType<typeof chooseWarmOrPrune>, ReturnType<typeof chooseWarmOrPrune>];
          for (const choice of [less, more]) {
            if (pi.action === "stop") expect(choice.chosen).toBe("prune");
            expect(choice.answer === "stop").toBe(pi.action === "warm" && choice.chosen === "prune");
            expect(choice.savingsVsPrune).toBeLessThanOrEqual(choice.savingsVsMiss + 1e-12);
          }
          if (less.chosen === "prune") expect(more.chosen).toBe("prune");
        },
      ),
    );
  });

  it("chooses the cheaper way: warm iff the refresh's expected savings against pruning reach pi's bar", () => {
    fc.assert(
      fc.property(figures, fc.double({ min: 0.01, max: 1, noNaN: true }), (pi, share) => {
        const prunableTokens = share * pi.promptTokens;
        const choice = chooseWarmOrPrune(pi, { promptTokens: pi.promptTokens, prunableTokens });
        // Expected cost of each way over the next interval: warm = the refresh, then a cache read when a request
        // comes; prune = a cache write of the pruned prefix when a request comes.
        const read = pi.warmCost;
        const warmCost = pi.warmCost + pi.continuationProbability * read;
        const pruneCost = pi.continuationProbability * (1 - share) * (pi.missCost + read);
        if (pi.action === "warm") {
          expect(choice.chosen === "warm").toBe(pruneCost - warmCost >= MIN_EXPECTED_SAVINGS);
        }
      }),
    );
  });

  // Per provider, with pi-ai's catalogue prices and pi's own figures: a 100k-token prompt of which a prune would
  // take half. Claude's cache write costs 12.5 times its read: during a run (a request is certain to come) a refresh
  // pays even against pruning; idle, pi itself does not refresh Sonnet, and refreshes the pricier Fable, where
  // expiring and pruning half costs less. OpenAI writes at the input price, 10 times its read: pruning wins.
  it.each([
    ["anthropic", "claude-sonnet-4-5", "streaming", "warm", undefined],
    ["anthropic", "claude-sonnet-4-5", "idle", "prune", undefined],
    ["anthropic", "claude-fable-5", "idle", "prune", "stop"],
    ["openai", "gpt-5", "streaming", "prune", "stop"],
  ] as const)("%s/%s while %s: %s (answer %s)", (provider, id, phase, chosen, answer) => {
    const pi = piDecision(model(provider, id), 100_000, phase);
    const choice = chooseWarmOrPrune(pi, { promptTokens: 100_000, prunableTokens: 50_000 });
    expect(choice, choice.reason).toMatchObject({ chosen, answer });
  });

  it("says why: pi wants a refresh, but expiring and pruning costs less", () => {
    const pi = { warmCost: 0.15, missCost: 1.725, continuationProbability: 0.15, action: "warm" as const };
    const choice = chooseWarmOrPrune(pi, { promptTokens: 500_000, prunableTokens: 400_000 });
    expect(choice).toMatchObject({ chosen: "prune", answer: "stop" });
    expect(choice.reason).toBe(
      "expiring and pruning costs less: a refresh (refresh $0.1500, 15% chance of a request in time) saves $0.1087 " +
        "against writing the whole prefix again, but -$0.1163 < $0.0500 against writing it pruned (~400000 of 500000 " +
        "prompt tokens pruned)",
    );
  });
});
