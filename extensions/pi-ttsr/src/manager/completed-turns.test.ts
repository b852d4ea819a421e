import { describe, expect, it } from "vitest";
import { completedTurns, countsAsTurn } from "./completed-turns.ts";

const assistant = (stopReason: string, content: unknown[] = [{ type: "text", text: "x" }]) => ({
  type: "message",
  message: { role: "assistant", stopReason, content },
});
const user = { type: "message", message: { role: "user", content: [{ type: "text", text: "go" }] } };
const retry = { type: "custom_message" };

describe("completedTurns", () => {
  it("counts assistant messages, not the billed attempts a retry replaced", () => {
    expect(completedTurns([user, assistant("aborted", []), retry, assistant("stop"), user, assistant("stop")])).toBe(2);
    // as pi-ttsr's session has it: its cost entry between the billed attempt and the retry
    const data = { type: "custom" };
    expect(completedTurns([user, data, assistant("aborted", []), data, retry, assistant("stop")])).toBe(1);
  });

  it("counts a turn the user aborted, and an empty aborted message no retry follows", () => {
    // Esc mid-answer: pi keeps what streamed (a turn ended); Esc before the first delta: nothing streamed, no retry.
    expect(completedTurns([user, assistant("aborted"), user, assistant("aborted", []), user])).toBe(2);
    // A follow-up custom message after a full answer does not hide that answer's turn.
    expect(completedTurns([user, assistant("stop"), retry, assistant("stop")])).toBe(2);
  });

  it("skips stock pi's emptied attempts (ended normally, no content) that a retry follows, live and on resume", () => {
    const data = { type: "custom" };
    expect(completedTurns([user, assistant("stop", []), data, retry, assistant("stop")])).toBe(1);
    // an empty answer no retry follows is a turn (a model may answer nothing)
    expect(completedTurns([user, assistant("stop", []), user, assistant("stop")])).toBe(2);
    expect(countsAsTurn(assistant("stop", []).message)).toBe(false);
    expect(countsAsTurn(assistant("stop").message)).toBe(true);
    expect(countsAsTurn(assistant("aborted").message)).toBe(true);
    expect(countsAsTurn(assistant("aborted", []).message)).toBe(true);
  });
});
