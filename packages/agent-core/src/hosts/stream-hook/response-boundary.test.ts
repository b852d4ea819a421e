import { describe, expect, it } from "vitest";
import { ResponseBoundary } from "./response-boundary.ts";

describe("ResponseBoundary", () => {
  it("sees a new response on a new attempt or when content indexes start over", () => {
    const b = new ResponseBoundary();
    expect(b.isNewResponse(0, 0, true)).toBe(true); // first delta ever
    expect(b.isNewResponse(0, 0, false)).toBe(false);
    expect(b.isNewResponse(0, 1, true)).toBe(false); // next block of the same message
    expect(b.isNewResponse(0, 1, false)).toBe(false);
    expect(b.isNewResponse(1, 0, true)).toBe(true); // retry after an abort
    expect(b.isNewResponse(1, 0, false)).toBe(false);
    expect(b.isNewResponse(0, 0, true)).toBe(true); // next turn: attempt back to 0
    expect(b.isNewResponse(0, 0, true)).toBe(true); // a one-block message after a one-block message
    expect(b.isNewResponse(0, 2, true)).toBe(false);
    expect(b.isNewResponse(0, 1, true)).toBe(true); // indexes went back
  });
});
