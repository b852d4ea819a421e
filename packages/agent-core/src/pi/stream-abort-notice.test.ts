import { describe, expect, it } from "vitest";
import { showStreamAbortNotice, streamAbortNotice } from "./stream-abort-notice.ts";

describe("streamAbortNotice", () => {
  it("names the rules of the retry and the next attempt", () => {
    expect(
      streamAbortNotice({ consecutive: 1, capReached: false, retry: { details: { rules: ["no-eval", "x"] } } }),
    ).toEqual({
      text: "↻ Response interrupted by rule no-eval, x; retrying (attempt 2)",
      level: "info",
    });
    const named = streamAbortNotice({
      consecutive: 2,
      capReached: false,
      retry: { details: { rules: [{ name: "r" }] } },
    });
    expect(named.text).toBe("↻ Response interrupted by rule r; retrying (attempt 3)");
  });

  it("says a stream rule when the retry names none, and warns at the abort cap", () => {
    expect(streamAbortNotice({ consecutive: 1, capReached: false }).text).toBe(
      "↻ Response interrupted by a stream rule; retrying (attempt 2)",
    );
    expect(streamAbortNotice({ consecutive: 4, capReached: true })).toEqual({
      text: "Stream rule interrupted 4 responses in a row; stopping this turn",
      level: "warning",
    });
  });

  it("shows it in the UI only", () => {
    const shown: string[] = [];
    const notify = (message: string, type?: string) => void shown.push(`${type}|${message}`);
    showStreamAbortNotice({ hasUI: false, ui: { notify } }, { consecutive: 1, capReached: false });
    showStreamAbortNotice({ hasUI: true, ui: { notify } }, { consecutive: 1, capReached: false });
    expect(shown).toEqual(["info|↻ Response interrupted by a stream rule; retrying (attempt 2)"]);
  });
});
