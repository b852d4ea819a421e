import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonStringDecoder } from "./json-strings.ts";

function feed(raw: string, cuts: number[]): { text: string; paths: string[] } {
  const d = new JsonStringDecoder();
  let text = "";
  let last = 0;
  for (const c of [...new Set(cuts.map((x) => x % (raw.length + 1)))].sort((a, b) => a - b)) {
    text += d.push(raw.slice(last, c));
    last = c;
  }
  text += d.push(raw.slice(last));
  return { text, paths: d.paths };
}

describe("JsonStringDecoder", () => {
  it("decodes values (not keys) and collects paths, whatever the chunking", () => {
    const args = { path: "src/a.ts", edits: [{ oldText: 'say "hi"\n', newText: "it's \u00e9 \\ done" }] };
    const raw = JSON.stringify(args);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 20 }), (cuts) => {
        const { text, paths } = feed(raw, cuts);
        expect(text).toBe("src/a.ts\nit's \u00e9 \\ done\n"); // oldText is what the edit removes: skipped
        expect(paths).toEqual(["src/a.ts"]);
      }),
    );
  });

  it("reads path lists and unicode escapes", () => {
    const { text, paths } = feed('{"paths":["a.ts","b\\u002ejs"],"command":"ls"}', [3, 9, 17]);
    expect(paths).toEqual(["a.ts", "b.js"]);
    expect(text).toBe("a.ts\nb.js\nls\n");
  });
});
