import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capValue, truncateTail, truncateText } from "./caps.ts";
import { defaultView } from "./default-view.ts";
import { renderToolView, TOOL_VIEWS, type ToolViewInput } from "./index.ts";

const caps = { maxTextChars: 120, maxFieldChars: 40, maxListItems: 3, maxDictKeys: 2 };
const input = (over: Partial<ToolViewInput>): ToolViewInput => ({
  tool: "x",
  callId: "call_1",
  id: "abcdef01",
  args: {},
  resultText: "",
  images: [],
  isError: false,
  hasResult: true,
  ...over,
});
const summary = (over: Partial<ToolViewInput>) => JSON.parse(renderToolView(input(over), caps).summary);

describe("caps", () => {
  it("truncates text to exactly the cap, keeps text that fits", () => {
    expect(truncateText("short", 10)).toBe("short");
    const cut = truncateText("x".repeat(100), 40);
    expect(cut.length).toBe(40);
    expect(cut.startsWith("[TRUNCATED] ")).toBe(true);
    expect(truncateTail(`${"a".repeat(100)}END`, 30).endsWith("END")).toBe(true);
  });

  it("caps fields, lists and objects; keeps ref: values verbatim; keeps __proto__ a plain key", () => {
    const ref = `ref:${"r".repeat(200)}`;
    const out = capValue(
      { a: "y".repeat(100), b: [1, 2, 3, 4, 5], c: ref, d: 1 },
      { ...caps, maxDictKeys: 3 },
    ) as Record<string, unknown>;
    expect((out["a"] as string).length).toBe(40);
    expect(out["b"]).toEqual([1, 2, 3, "[TRUNCATED] +2 items"]);
    expect(out["c"]).toBe(ref);
    expect(out["..."]).toBe("[TRUNCATED] +1 keys");
    const proto = capValue(JSON.parse('{"__proto__":{"x":1}}'), caps) as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(["__proto__"]);
  });
});

describe("per-tool views", () => {
  it("read: the file body becomes a [TRUNCATED FILE] marker; errors keep (capped) text", () => {
    const s = summary({ tool: "read", args: { path: "src/a.ts", offset: 10 }, resultText: "l1\nl2\nl3" });
    expect(s).toEqual({
      tool: "read",
      tool_call_id: "call_1",
      id: "abcdef01",
      params: { path: "src/a.ts", offset: 10 },
      result: "[TRUNCATED FILE] id=abcdef01 path=src/a.ts lines=3 chars=8",
    });
    expect(summary({ tool: "read", args: { path: "a" }, resultText: "ENOENT", isError: true }).result).toBe("ENOENT");
    expect(
      summary({ tool: "read", args: { path: "p.png" }, images: [{ mimeType: "image/png", chars: 9 }] }).result,
    ).toMatch(/images=image\/png:9$/);
  });

  it("write: the content parameter is a file marker, the result kept", () => {
    const s = summary({
      tool: "write",
      args: { path: "a.txt", content: "x\n".repeat(500) },
      resultText: "Wrote a.txt",
    });
    expect(s.params).toEqual({
      path: "a.txt",
      content: "[TRUNCATED FILE] id=abcdef01 path=a.txt lines=500 chars=1000",
    });
    expect(s.result).toBe("Wrote a.txt");
  });

  it("edit: old/new texts capped per field, the diff cut to maxTextChars", () => {
    const s = summary({
      tool: "edit",
      args: { path: "a", edits: [{ oldText: "o".repeat(99), newText: "n" }] },
      resultText: "d".repeat(500),
    });
    expect(s.params.edits[0].oldText.length).toBe(40);
    expect(s.result.length).toBeLessThanOrEqual(120);
  });

  it("bash: keeps the tail of long output with a line count", () => {
    const out = `${Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n")}\nERROR at the end`;
    const s = summary({ tool: "bash", args: { command: "make" }, resultText: out });
    expect(s.result).toMatch(/ERROR at the end \(lines=101\)$/);
    expect(summary({ tool: "bash", args: { command: "true" }, resultText: "ok" }).result).toBe("ok");
  });

  it("grep: match count and files; find/ls: entry count and the first entries, within maxTextChars", () => {
    const grep = "a.ts:1:x\na.ts:2:y\nb.ts:3:z\nc.ts:9:w\nd.ts:1:v";
    expect(summary({ tool: "grep", args: { pattern: "x" }, resultText: grep }).result).toBe(
      JSON.stringify({ matches: 5, files: ["a.ts", "b.ts", "c.ts"], more_files: 1 }),
    );
    const find = Array.from({ length: 40 }, (_, i) => `dir/file-${i}.ts`).join("\n");
    const r = JSON.parse(summary({ tool: "find", args: { pattern: "*.ts" }, resultText: find }).result);
    expect(r.entries).toBe(40);
    expect(r.first.length).toBeLessThanOrEqual(3);
    expect(summary({ tool: "ls", args: {}, resultText: "a\nb" }).result).toBe(
      JSON.stringify({ entries: 2, first: ["a", "b"], more: 0 }),
    );
  });

  it("default: JSON results keep their shape; search hits and fetched pages keep their identifying fields", () => {
    const hits = [
      { sid: 1, url: "https://a", title: "A", text: "t".repeat(30), score: 0.9, html: "<p>".repeat(50) },
      { sid: 2, url: "https://b", title: "B", text: "u", score: 0.5 },
    ];
    const wide = { ...caps, maxDictKeys: 10, maxTextChars: 400 };
    const s = JSON.parse(renderToolView(input({ tool: "web_search", resultText: JSON.stringify(hits) }), wide).summary);
    expect(s.result).toEqual([
      { sid: 1, url: "https://a", title: "A", text: "t".repeat(30) },
      { sid: 2, url: "https://b", title: "B", text: "u" },
    ]);
    const page = { url: "https://p", title: "P", content: "c".repeat(500), headers: { x: 1 } };
    const fetched = JSON.parse(
      renderToolView(input({ tool: "web_fetch", resultText: JSON.stringify(page) }), wide).summary,
    ).result;
    expect(Object.keys(fetched)).toEqual(["url", "title", "content"]);
    expect(JSON.stringify(fetched).length).toBeLessThanOrEqual(400);
    expect(summary({ tool: "x", resultText: "[not json" }).result).toBe("[not json");
  });

  it("default: unknown tools get capped params and a [TRUNCATED] result; ref: results stay verbatim", () => {
    const s = summary({ tool: "web_fetch", args: { url: "u".repeat(80) }, resultText: "p".repeat(500) });
    expect(s.params.url.length).toBe(40);
    expect(s.result.startsWith("[TRUNCATED] ")).toBe(true);
    expect(s.result.length).toBeLessThanOrEqual(120);
    const ref = `ref:artifact/${"z".repeat(300)}`;
    expect(summary({ tool: "memory", resultText: ref }).result).toBe(ref);
  });

  it("default: search results longer than maxTextChars keep their sid/url/title/text shape and ref: values", () => {
    const hits = Array.from({ length: 20 }, (_, i) => ({
      sid: i,
      url: `https://example.com/${i}/${"p".repeat(60)}`,
      title: `Title ${i} ${"t".repeat(80)}`,
      text: "x".repeat(2000),
      ref: `ref:search/${i}/${"k".repeat(40)}`,
      html: "<div>".repeat(100),
    }));
    const wide = { maxTextChars: 400, maxFieldChars: 1000, maxListItems: 50, maxDictKeys: 80 };
    const s = JSON.parse(
      renderToolView(input({ tool: "web_search", resultText: JSON.stringify({ results: hits }) }), wide).summary,
    );
    expect(Array.isArray(s.result.results)).toBe(true);
    const first = s.result.results[0];
    expect(Object.keys(first).sort()).toEqual(["ref", "sid", "text", "title", "url"]);
    expect(first.ref).toBe(hits[0]?.ref); // verbatim, never cut
    // The hits that did not fit are named by their references (verbatim too): the rest fits maxTextChars.
    const named = hits.slice(s.result.results.length - 1).map((hit) => hit.ref);
    const marker = s.result.results.at(-1) as string;
    expect(marker).toBe(`[TRUNCATED] +${named.length} items refs: ${named.join(" ")}`);
    expect(JSON.stringify(s.result).length - marker.length).toBeLessThanOrEqual(400);
  });

  it("default: a text result cut to maxTextChars still carries every ref: value it held, verbatim", () => {
    const refs = ["ref:artifact/alpha-1", "ref:doc/beta_2#x"];
    const body = `${"lorem ".repeat(100)}see ${refs[0]} and (${refs[1]}) ${"ipsum ".repeat(100)}`;
    const r = summary({ tool: "notes", resultText: body }).result as string;
    expect(r.startsWith("[TRUNCATED] ")).toBe(true);
    for (const ref of refs) expect(r).toContain(ref);
  });

  it("default: every ref: a JSON result or the parameters held is still in the summary, whatever was cut", () => {
    // JSON the way tools write it (search hits, nested metadata, lists, long texts), with references anywhere: whole
    // values, deep in dropped fields and items, and inside texts that get cut.
    const ref = fc.stringMatching(/^[a-z0-9/_-]{1,12}$/).map((r) => `ref:${r}`);
    const words = fc.array(fc.oneof(fc.constantFrom("lorem", "ipsum", "see", "x".repeat(30)), ref), { maxLength: 12 });
    const leaf = fc.oneof(
      ref,
      words.map((w) => w.join(" ")),
      fc.integer(),
      fc.constant(null),
    );
    const shapes = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, leaf, tie("list"), tie("record")),
      list: fc.array(tie("value"), { maxLength: 6 }),
      record: fc.dictionary(
        fc.constantFrom("sid", "url", "title", "text", "meta", "ref", "html", "a", "b"),
        tie("value"),
        {
          maxKeys: 6,
        },
      ),
    }));
    const json = shapes.value;
    // A result is a JSON document (an object or a list; a top-level string is just text, see the text path).
    const documents = fc.oneof(shapes.list, shapes.record);
    const hits = fc.array(
      fc.record({
        url: fc.constant("https://e.com"),
        title: words.map((w) => w.join(" ")),
        text: words.map((w) => w.join(" ")),
        meta: json,
      }),
      { maxLength: 8 },
    );
    const tight = { maxTextChars: 120, maxFieldChars: 24, maxListItems: 2, maxDictKeys: 2 };
    fc.assert(
      fc.property(
        fc.oneof(
          documents,
          hits.map((results) => ({ results })),
        ),
        json,
        (result, args) => {
          const params =
            typeof args === "object" && args !== null && !Array.isArray(args)
              ? (args as Record<string, unknown>)
              : { value: args };
          const out = renderToolView(
            input({ tool: "web_search", args: params, resultText: JSON.stringify(result) }),
            tight,
          );
          // Every reference the generator put in (found by its own alphabet, not by the code under test), verbatim
          // in the summary's text (they need no JSON escape).
          const put = JSON.stringify([params, result]).match(/ref:[a-z0-9/_-]+/g) ?? [];
          for (const r of put) expect(out.summary).toMatch(new RegExp(`${r.replace(/[/-]/g, "\\$&")}(?![a-z0-9/_-])`));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("the summary is exactly JSON.stringify({tool, tool_call_id, id, params, result}) (assembled from parts)", () => {
    for (const over of [
      { tool: "read", args: { path: "a.ts" }, resultText: "x\ny" },
      { tool: "bash", args: { command: 'echo "hi"\n' }, resultText: "out ".repeat(100) },
      { tool: "web_search", args: { q: "ü \u2028" }, resultText: JSON.stringify([{ url: "u", title: "t" }]) },
    ]) {
      const r = renderToolView(input(over), caps);
      const { result } = JSON.parse(r.summary);
      const expected = { tool: over.tool, tool_call_id: "call_1", id: "abcdef01", params: r.args, result };
      expect(r.summary).toBe(JSON.stringify(expected));
      expect(r.argsJson).toBe(JSON.stringify(r.args));
    }
  });
});

describe("the summary's bytes", () => {
  const text = fc.oneof(
    fc.string({ unit: "binary" }),
    fc.string({ unit: fc.constantFrom("a", " ", '"', "\\", "\n", "\u0001", "\ud800", "\udc00", "…", ":", "ref:") }),
    // Longer than the caps: outputs whose tails, cuts and markers are what the summary joins from pieces.
    fc.string({ unit: fc.constantFrom("a", '"', "\n", "\ud800", "\udc00", "😀", "ü"), minLength: 100, maxLength: 400 }),
  );
  it("are JSON.stringify({tool, tool_call_id, id, params, result}) of the view, for every tool and any input", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TOOL_VIEWS.keys(), "web_search", 'mcp"tool'),
        text,
        fc.dictionary(fc.constantFrom("path", "command", "content", "pattern", "x"), fc.oneof(text, fc.integer())),
        fc.oneof(
          text,
          text.map((t) => JSON.stringify({ results: [{ title: t, url: "u", text: t }] })),
        ),
        fc.boolean(),
        fc.array(fc.record({ mimeType: text, chars: fc.nat() }), { maxLength: 2 }),
        (tool, callId, args, resultText, isError, images) => {
          const at = input({ tool, callId, args, resultText, isError, images });
          const { params, result } = (TOOL_VIEWS.get(tool) ?? defaultView)(at, caps);
          const rendered = renderToolView(at, caps);
          expect(rendered.summary).toBe(JSON.stringify({ tool, tool_call_id: callId, id: at.id, params, result }));
          expect(rendered.argsJson).toBe(JSON.stringify(params));
        },
      ),
      { numRuns: 1500 },
    );
  });
});

describe("read's parameters", () => {
  it("are path, offset and limit in that order, and the call's own object when that is all it holds", () => {
    const wide = { maxTextChars: 400, maxFieldChars: 1000, maxListItems: 50, maxDictKeys: 80 };
    const read = TOOL_VIEWS.get("read");
    const args = fc.dictionary(
      fc.constantFrom("path", "offset", "limit", "x"),
      fc.oneof(fc.string(), fc.integer(), fc.constant(undefined)),
    );
    fc.assert(
      fc.property(args, (args) => {
        const kept = ["path", "offset", "limit"].filter((k) => Object.hasOwn(args, k) && args[k] !== undefined);
        const { params } = read?.(input({ tool: "read", args }), wide) ?? { params: undefined };
        expect(params).toEqual(Object.fromEntries(kept.map((k) => [k, args[k]])));
        expect(Object.keys(params ?? {})).toEqual(kept);
        expect(params === args).toBe(Object.keys(args).join() === kept.join());
      }),
      { numRuns: 2000 },
    );
  });
});
