import { join } from "node:path";
import { resolvePiCli } from "@pi-rails/testkit";
import { describe, expect, it } from "vitest";
// @ts-expect-error: the demo's scripts are plain ES modules without types
import { checkoutTarget, stockTarget } from "../../../scripts/demo/target.mjs";
// @ts-expect-error: the demo's scripts are plain ES modules without types
import { hasTmux, runTuiCheck } from "../../../scripts/demo/tui.mjs";

const ROOT = join(import.meta.dirname, "..", "..", "..");

interface TuiCheck {
  screen: string;
  frames: { read: number; withPartial: number; withMatch: number };
  notice: string | null;
  finalAnswerShown: boolean;
  partialShown: boolean;
  failureShown: boolean;
}

// What a user sees in pi's interactive TUI (a real terminal: tmux) while a pi-ttsr rule interrupts a streamed answer,
// on both hosts. The screen is read every 10 ms while it streams, so a flash that the final screen no longer shows is
// seen too. The README's host table says what each shows; this is where it is measured.
describe.skipIf(!hasTmux())("the TUI while a rule interrupts a streamed answer (tmux)", () => {
  it.each(["patched", "stock"])(
    "%s pi: the notice and only the retried answer stay; no error is shown",
    async (host) => {
      const target = host === "stock" ? await stockTarget(ROOT) : checkoutTarget(ROOT, { piCli: resolvePiCli() });
      const tui = (await runTuiCheck({ root: ROOT, target })) as TuiCheck;
      console.log(`${host} pi's TUI: ${JSON.stringify({ ...tui, screen: undefined })}`);
      expect(tui.notice, tui.screen).not.toBeNull();
      expect(tui.finalAnswerShown, tui.screen).toBe(true);
      expect(tui.partialShown, tui.screen).toBe(false);
      expect(tui.failureShown, tui.screen).toBe(false);
      expect(tui.frames.read).toBeGreaterThan(0);
      // The patched loop aborts before the delta completing the match is shown: no frame ever holds it. (Stock pi
      // shows each delta as it comes, that one included, until the abort takes effect: counted, not asserted.)
      if (host === "patched") expect(tui.frames.withMatch).toBe(0);
    },
    180_000,
  );
});
