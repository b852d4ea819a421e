import { installStockPi, type StockPi } from "@pi-rails/testkit";
import { afterAll, afterEach, beforeAll, describe, it } from "vitest";
import { disposeScenario, expiryScenario, type Scenario, warmingScenario } from "./cli-scenario.ts";

// The published pi 1.6.0 as a user has it (its bundled CLI), without the pi-rails patch: cache-ttl-view needs only
// pi's own events.
describe("stock pi (published 1.6.0, no patch)", () => {
  let stock: StockPi | undefined;
  const scenario: Scenario = {};
  beforeAll(() => {
    stock = installStockPi({ shared: true });
  }, 300_000);
  afterAll(() => stock?.dispose());
  afterEach(() => disposeScenario(scenario));

  it("prunes after expiry, keeps the session file whole, and repeats the pruned prefix", async () => {
    await expiryScenario(scenario, stock?.cli);
  }, 240_000);

  it("does not prune while pi's own cache warming keeps the cache warm through a tool call longer than the TTL", async () => {
    await warmingScenario(scenario, stock?.cli);
  }, 240_000);
});
