import { describe, expect, it } from "vitest";
import { isBashExecution, type ViewMessage } from "../model/messages.ts";
import { NOTICE_TYPE } from "../render/render.ts";
import { defaultSettings } from "../settings/settings.ts";
import type { StateEntry } from "../state/entries.ts";
import { SessionBuilder, text } from "../testing/fixtures.ts";
import { SessionView } from "./session-view.ts";

const MIN = 60_000;

/** Chars of everything a provider would be sent for this message (text, thinking, arguments, base64). */
function charsOf(m: ViewMessage): number {
  let n = 0;
  const content = (m as { content?: unknown }).content;
  if (typeof content === "string") return content.length;
  if (Array.isArray(content)) {
    for (const part of content as Record<string, unknown>[]) {
      if (typeof part["text"] === "string") n += part["text"].length;
      else if (typeof part["thinking"] === "string") n += part["thinking"].length;
      else if (typeof part["data"] === "string") n += part["data"].length;
      else if (part["type"] === "toolCall") n += JSON.stringify(part["arguments"] ?? {}).length + 40;
    }
  }
  if (isBashExecution(m)) n += m.command.length + m.output.length;
  const summary = (m as { summary?: unknown }).summary;
  if (typeof summary === "string") n += summary.length;
  return n;
}

const settings = defaultSettings({ keepRecentTurns: 2, minGainTokens: 0 });

function session(turns: number): SessionBuilder {
  const s = new SessionBuilder();
  for (let i = 0; i < turns; i++) {
    s.user(`prompt ${i} ${text(900)}`);
    s.tool("read", { path: `f${i}.ts` }, text(9000, `body${i}`));
    s.assistant(`answer ${i} ${text(900)}`);
  }
  return s;
}

const render = (view: SessionView, s: SessionBuilder, now: number, ttlSeconds: number | undefined = 300) =>
  view.render(s.clone(), { now, ttlSeconds });
const bytes = (messages: readonly ViewMessage[]) => messages.map((m) => JSON.stringify(m));

describe("SessionView", () => {
  it("arms on the first request, stays warm, prunes once expired, then repeats the same bytes", () => {
    const s = session(4).user("next");
    expect(render(new SessionView(settings), new SessionBuilder().user("hi"), 0).clock.kind).toBe("armed");
    const view = new SessionView(settings);
    expect(render(view, s, 0).clock.kind).toBe("warm"); // touch inferred from the messages
    const warm = render(view, s, 1 * MIN);
    expect(warm.clock.kind).toBe("warm");
    expect(warm.entries).toEqual([]);

    const pruned = render(view, s, 7 * MIN);
    expect(pruned.clock.kind).toBe("expired");
    expect(pruned.entries).toHaveLength(1);
    expect(pruned.entries[0]?.kind).toBe("prune");
    const last = pruned.messages[pruned.messages.length - 1] as { role: string; customType?: string };
    expect(last).toMatchObject({ role: "custom", customType: NOTICE_TYPE });

    s.assistant("reply").user("again");
    const after = render(view, s, 8 * MIN);
    expect(after.reused).toBe(true);
    expect(bytes(after.messages).slice(0, pruned.messages.length)).toEqual(bytes(pruned.messages));
  });

  it("never makes a message larger, and keeps every tool call paired with its result", () => {
    const s = session(5).user("next");
    const view = new SessionView(settings);
    render(view, s, 0);
    const out = render(view, s, 10 * MIN).messages.filter((m) => m.role !== "custom");
    expect(out).toHaveLength(s.messages.length);
    for (const [i, m] of out.entries()) {
      expect(charsOf(m)).toBeLessThanOrEqual(charsOf(s.messages[i] as ViewMessage));
    }
    const calls = out.flatMap((m) =>
      m.role === "assistant"
        ? (m.content as { type: string; id?: string }[]).filter((p) => p.type === "toolCall").map((p) => p.id)
        : [],
    );
    const results = out.flatMap((m) => (m.role === "toolResult" ? [m["toolCallId"]] : []));
    expect(calls).toEqual(results);
  });

  it("after a reload: same view bytes from the persisted entries, and the bootstrap TTL decides the first request", () => {
    const s = session(4).user("next");
    const entries: StateEntry[] = [];
    const first = new SessionView(settings);
    render(first, s, 0, 3600);
    const pruned = render(first, s, 61 * MIN, 3600);
    entries.push(...pruned.entries, first.touchEntry() as StateEntry);

    // Reloaded with a shorter current TTL: the first request still judges with the stored 3600 s.
    const reloaded = new SessionView(settings);
    reloaded.load(entries);
    const boot = render(reloaded, s, 61 * MIN + 10 * MIN, 300);
    expect(boot.clock.kind).toBe("warm");
    expect(bytes(boot.messages)).toEqual(bytes(pruned.messages));
    // From then on the current TTL applies.
    expect(render(reloaded, s, 61 * MIN + 16 * MIN, 300).clock.kind).toBe("expired");
  });

  it("after a resume, pruning that is off now stays off on the first request (the stored TTL does not revive it)", () => {
    const s = session(4).user("next");
    // Turned off (cacheTtl.ttlSeconds: 0), or a model whose TTL is not known: the extension says pruning is off.
    for (const current of [0, undefined]) {
      const view = new SessionView(settings);
      view.load([{ kind: "touch", at: 0, ttlSeconds: 300 }]);
      const r = view.render(s.clone(), { now: 10 * MIN, ttlSeconds: current });
      expect(r.clock.kind).toBe("off");
      expect(r.plan).toBeUndefined();
      expect(r.entries).toEqual([]);
      expect(bytes(r.messages)).toEqual(bytes(s.messages));
    }
    // Written under 300 s, and now a 300 s buffer with a 3600 s TTL: 5 s after the last request the cache is warm.
    const buffered = new SessionView(defaultSettings({ keepRecentTurns: 2, minGainTokens: 0, bufferSeconds: 300 }));
    buffered.load([{ kind: "touch", at: 0, ttlSeconds: 300 }]);
    const r = render(buffered, s, 5_000, 3600);
    expect(r.clock.kind).toBe("warm");
    expect(r.plan).toBeUndefined();
  });

  it("requests made while pruning is off still touch the clock: back on, a warm cache is not pruned", () => {
    const s = session(4).user("next");
    const view = new SessionView(settings);
    view.load([{ kind: "touch", at: 0, ttlSeconds: 300 }]);
    expect(render(view, s, 1 * MIN, 300).clock.kind).toBe("warm");
    // Off for a while (settings in conflict, or a model whose TTL is not known), a request every 3 minutes.
    for (const at of [4, 7, 10])
      expect(view.render(s.clone(), { now: at * MIN, ttlSeconds: undefined }).plan).toBeUndefined();
    // Back on a minute after the last request: the cache that request touched is warm.
    const back = render(view, s, 11 * MIN, 300);
    expect(back.clock).toMatchObject({ kind: "warm" });
    expect(back.plan).toBeUndefined();
    expect(view.touchEntry()).toMatchObject({ at: 11 * MIN, ttlSeconds: 300 });
  });
  it("infers the touch time from the messages when nothing is stored", () => {
    const s = session(4).user("next");
    const view = new SessionView(settings);
    view.load([]);
    const lastAssistant = s.messages.filter((m) => m.role === "assistant").at(-1) as ViewMessage;
    const r = render(view, s, (lastAssistant.timestamp as number) + 10 * MIN);
    expect(r.clock.kind).toBe("expired");
    expect(r.plan?.ids.length).toBeGreaterThan(0);
  });

  it("restores in place (the block shows its original again) and finds originals by id", () => {
    const s = session(4).user("next");
    const view = new SessionView(settings);
    render(view, s, 0);
    const pruned = render(view, s, 10 * MIN);
    const id = pruned.plan?.ids[0] as string;
    const { found, missing } = view.originals([id, "ffffffff"], s.messages);
    expect(found.map((f) => f.id)).toEqual([id]);
    expect(missing).toEqual(["ffffffff"]);
    view.apply({ kind: "restore", at: 11 * MIN, ids: [id] });
    expect(view.state.pruned.has(id)).toBe(false);
    const after = render(view, s, 11 * MIN);
    expect(after.reused).toBe(false);
    expect(JSON.stringify(after.messages).includes(`id=${id}`)).toBe(false);
  });

  it("usage counters are evidence about the whole prefix: only a read covering the previous prompt holds prunes", () => {
    const s = session(4).user("next");
    (s.messages.findLast((m) => m.role === "assistant") as { usage: unknown }).usage = { input: 200, cacheRead: 9800 };
    const quiet = { ...settings, minGainTokens: 1e9 }; // expired requests go out unpruned: evidence is possible
    const view = new SessionView(quiet);
    render(view, s, 0);
    // 8 min idle: beyond the TTL; the provider read only the system prompt and tools (shared with other sessions).
    view.render(s.clone(), { now: 8 * MIN, ttlSeconds: 300 });
    expect(view.observeUsage({ input: 9500, cacheRead: 500 })).toBeUndefined();
    expect(view.state.warmGapSeconds).toBe(0);
    // 16 min later: the whole previous prompt was read from the cache: it lived 16 min.
    view.render(s.clone(), { now: 24 * MIN, ttlSeconds: 300 });
    expect(view.observeUsage({ input: 100, cacheRead: 9900 })).toMatchObject({ kind: "touch", warmGapSeconds: 960 });
    expect(render(view, s, 34 * MIN).clock.kind).toBe("held");
    // A miss within that idle withdraws the evidence.
    expect(view.observeUsage({ input: 10_000, cacheRead: 0 })).toMatchObject({ kind: "touch", warmGapSeconds: 0 });
    expect(render(view, s, 44 * MIN).clock.kind).toBe("expired");
  });

  it("a running session draws only what changed, and sends the bytes a view rebuilt from the entries sends", () => {
    const s = new SessionBuilder();
    const turn = (i: number) => {
      s.user(`prompt ${i} ${text(900)}`);
      // An assistant message with thinking and a call (Responses ids): pruning its text drops the reasoning, and
      // the result of its call loses the item id in a later pass than the one that pruned the call.
      s.push({
        role: "assistant",
        content: [
          { type: "thinking", thinking: text(600, `why${i}`) },
          { type: "toolCall", id: `call_${i}|fc_${i}`, name: "read", arguments: { path: `f${i}.ts` } },
        ],
        timestamp: 10_000 + i,
      });
      s.push({
        role: "toolResult",
        toolCallId: `call_${i}|fc_${i}`,
        toolName: "read",
        content: [{ type: "text", text: text(i % 2 ? 9000 : 300, `body${i}`) }],
        timestamp: 20_000 + i,
      });
      s.assistant(`answer ${i} ${text(900)}`, i % 3 === 0 ? text(500, "think") : undefined);
    };
    const view = new SessionView(settings);
    const entries: StateEntry[] = [{ kind: "touch", at: 0, ttlSeconds: 300 }];
    view.load(entries);
    let now = 0;
    for (let round = 0; round < 4; round++) {
      for (let k = 0; k < 3; k++) turn(round * 3 + k);
      s.user("next");
      now += 10 * MIN; // expired: prunes what became eligible since the last pass
      const pruned = render(view, s, now);
      entries.push(...pruned.entries);
      now += MIN; // warm: the next request appends
      s.assistant("ok");
      s.user("more");
      const warm = render(view, s, now);
      expect(warm.reused).toBe(true);
      const rebuilt = new SessionView(settings);
      rebuilt.load([...entries, { kind: "touch", at: now, ttlSeconds: 300 }]);
      const fresh = render(rebuilt, s, now);
      expect(fresh.reused).toBe(false);
      expect(bytes(warm.messages)).toEqual(bytes(fresh.messages));
    }
    expect(view.state.pruned.size).toBeGreaterThan(20);
  });

  it("prepared while idle after a resume, the first requests send the bytes and prune what an unprepared view does", () => {
    const s = session(8).user("next");
    const first = new SessionView(settings);
    render(first, s, 0);
    const entries: StateEntry[] = [...render(first, s, 10 * MIN).entries, first.touchEntry() as StateEntry];
    s.assistant("ok");
    for (let i = 8; i < 12; i++) s.user(`prompt ${i} ${text(900)}`).tool("read", { path: `g${i}.ts` }, text(9000));
    const resumed = s.clone(); // what the session file holds when it is resumed (the request adds a prompt)
    s.user("after the resume");
    const runs = (prepare: (view: SessionView) => void) => {
      const view = new SessionView(settings);
      view.load(entries);
      prepare(view);
      // Warm (the stored TTL), then expired: the prepared analysis serves both, the expired one prunes more.
      const warm = render(view, s, 12 * MIN);
      const expired = render(view, s, 30 * MIN);
      return { warm: bytes(warm.messages), expired: bytes(expired.messages), plan: expired.plan?.ids };
    };
    const unprepared = runs(() => undefined);
    expect(unprepared.plan?.length).toBeGreaterThan(0);
    expect(runs((view) => view.prepare(resumed))).toEqual(unprepared);
    // A list that the request does not start with (another branch, an edited file) is dropped, not extended, even
    // when its ends and its length match the request's.
    const other = resumed.slice();
    other.splice(3, 1);
    other.splice(6, 0, { role: "user", content: `moved ${text(900)}`, timestamp: 6 });
    expect(runs((view) => view.prepare(other))).toEqual(unprepared);
    // Preparing never hands the model the session's own objects: the tool call arguments of the view are copies.
    const view = new SessionView(settings);
    view.load(entries);
    view.prepare(resumed);
    const sent = render(view, s, 30 * MIN).messages;
    const call = (list: readonly ViewMessage[]) =>
      (list[1] as { content: { arguments?: unknown }[] }).content.find((part) => part.arguments)?.arguments;
    expect(call(sent)).toEqual(call(resumed));
    expect(call(sent)).not.toBe(call(resumed));
  });

  it("a reload draws each pruned marker with the lines counted when it was pruned, without reading the output", () => {
    const s = new SessionBuilder();
    for (let i = 0; i < 4; i++) {
      s.user(`prompt ${i}`);
      s.tool("read", { path: `f${i}.ts` }, "const x = 1;\n".repeat(500 + i));
      s.tool("bash", { command: `make ${i}` }, `building ${i}\n`.repeat(300 + i));
      s.assistant(`answer ${i}`);
    }
    s.user("next");
    const view = new SessionView(settings);
    render(view, s, 0);
    const pruned = render(view, s, 10 * MIN);
    const prune = pruned.entries[0] as Extract<StateEntry, { kind: "prune" }>;
    const touch = view.touchEntry() as StateEntry;
    const counted = (messages: readonly ViewMessage[]) =>
      JSON.stringify(messages)
        .match(/lines=\d+/g)
        ?.map((m) => Number(m.slice(6)));
    // Each read and bash block pruned stored what its marker says (the last bash output is recent and not heavy).
    const lines = [500, 300, 501, 301, 502, 302, 503];
    expect(counted(pruned.messages)).toEqual(lines);
    expect(prune.lines).toHaveLength(prune.ids.length);
    expect(prune.lines?.filter((n) => n >= 0)).toEqual(lines);

    // A count the output does not have: the reloaded view says it, so it did not count again.
    const tampered = { ...prune, lines: prune.lines?.map((n) => (n >= 0 ? n + 1000 : n)) };
    const reloaded = new SessionView(settings);
    reloaded.load([tampered, touch]);
    expect(counted(render(reloaded, s, 11 * MIN).messages)).toEqual(lines.map((n) => n + 1000));

    // An entry of an older version stores none: counted again, the bytes of the first request.
    const { lines: _, ...older } = prune;
    const counting = new SessionView(settings);
    counting.load([older, touch]);
    expect(bytes(render(counting, s, 11 * MIN).messages)).toEqual(bytes(pruned.messages));
  });

  it("a request whose view failed after its prune was made drops that prune: pi sent it unpruned, nothing persisted", () => {
    const s = session(5).user("next");
    const view = new SessionView(settings);
    render(view, s, 0);
    // Frozen: patching the view into the request's list throws, after the plan and its prune entry were made.
    const frozen = Object.freeze(s.clone());
    expect(() => view.render(frozen as ViewMessage[], { now: 10 * MIN, ttlSeconds: 300 })).toThrow(TypeError);
    expect(view.state.pruned.size).toBe(0);
    expect(view.state.prunes).toEqual([]);
    expect(view.requestsAfterPrune).toEqual([]);
    // The unpruned request touched the cache: the next one is warm and sends the originals.
    const next = render(view, s, 11 * MIN);
    expect(next.clock.kind).toBe("warm");
    expect(bytes(next.messages)).toEqual(bytes(s.messages));
  });

  it("does nothing when disabled", () => {
    const s = session(4).user("next");
    const view = new SessionView({ ...settings, enabled: false });
    render(view, s, 0);
    const r = render(view, s, 60 * MIN);
    expect(r.clock.kind).toBe("off");
    expect(bytes(r.messages)).toEqual(bytes(s.messages));
  });
});
