import { describe, expect, it } from "vitest";
import { splitOutsideBrackets } from "./split.ts";

describe("splitOutsideBrackets", () => {
  it("keeps commas inside {} and [] and returns pieces as written", () => {
    expect(splitOutsideBrackets("src/*.{ts,tsx}, [a,b].md,,x")).toEqual(["src/*.{ts,tsx}", " [a,b].md", "", "x"]);
  });

  it("with parens and whitespace: scope tokens", () => {
    expect(splitOutsideBrackets("text tool:edit(*.{ts, tsx}),x", { brackets: "({[", whitespace: true })).toEqual([
      "text",
      "tool:edit(*.{ts, tsx})",
      "x",
    ]);
  });

  it("an unbalanced closer does not go below zero", () => {
    expect(splitOutsideBrackets("a},b")).toEqual(["a}", "b"]);
  });
});
