import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { analyze, type Block } from "../plan/analysis.ts";
import { planPrune } from "../plan/plan.ts";
import { replacementFor } from "../render/replacements.ts";
import { defaultSettings } from "../settings/settings.ts";
import { png, SessionBuilder } from "../testing/fixtures.ts";
import { imageSize, imageTokens, messageTokens } from "./tokens.ts";

/** A JPEG with an EXIF-sized APP1 segment before its frame header. */
function jpeg(w: number, h: number): string {
  const app1 = Buffer.alloc(4 + 30_000);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(2 + 30_000, 2);
  const sof = Buffer.alloc(11);
  sof.writeUInt16BE(0xffc0, 0);
  sof.writeUInt16BE(11 - 2, 2);
  sof.writeUInt8(8, 4);
  sof.writeUInt16BE(h, 5);
  sof.writeUInt16BE(w, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, sof, Buffer.alloc(1000)]).toString("base64");
}

describe("image tokens", () => {
  it("reads the size of PNG, JPEG (after EXIF), GIF and WebP headers", () => {
    expect(imageSize(png(1920, 1080, 10))).toEqual({ width: 1920, height: 1080 });
    expect(imageSize(jpeg(800, 600))).toEqual({ width: 800, height: 600 });
    const gif = Buffer.alloc(20);
    gif.write("GIF89a", 0, "latin1");
    gif.writeUInt16LE(320, 6);
    gif.writeUInt16LE(200, 8);
    expect(imageSize(gif.toString("base64"))).toEqual({ width: 320, height: 200 });
    const webp = Buffer.alloc(40);
    webp.write("RIFF", 0, "latin1");
    webp.write("WEBPVP8X", 8, "latin1");
    webp.writeUIntLE(1023, 24, 3);
    webp.writeUIntLE(767, 27, 3);
    expect(imageSize(webp.toString("base64"))).toEqual({ width: 1024, height: 768 });
    expect(imageSize("AAAA")).toBeUndefined();
  });

  it("costs what each provider bills for the pixels, not base64 length / 4", () => {
    const shot = { data: png(1920, 1080) }; // 300,000 base64 chars: 75,000 tokens by length
    expect(shot.data.length).toBe(300_032);
    expect(imageTokens(shot, "anthropic-messages")).toBe(1534);
    expect(imageTokens(shot, "openai-responses")).toBe(85 + 170 * 6);
    expect(imageTokens(shot, "google-generative-ai")).toBe(258 * 6);
    expect(imageTokens({ data: png(300, 200, 10) }, "google-generative-ai")).toBe(258);
    expect(imageTokens({ data: "not an image" }, "anthropic-messages")).toBe(1600);
  });

  it("counts earlier thinking only where the API bills it", () => {
    const m = { role: "assistant", content: [{ type: "thinking", thinking: "x".repeat(4000) }], timestamp: 1 };
    expect(messageTokens(m, "anthropic-messages")).toBe(0);
    expect(messageTokens(m, "openai-responses")).toBe(0);
    expect(messageTokens(m, "google-generative-ai")).toBe(1000);
  });

  it("the plan's saved tokens (notice, /cache-ttl, minGainTokens) use the same accounting", () => {
    const s = new SessionBuilder();
    s.user("look", [{ type: "image", mimeType: "image/png", data: png(1920, 1080) }]).assistant("ok");
    s.user("again", [{ type: "image", mimeType: "image/png", data: png(1920, 1080) }]).assistant("ok");
    s.user("now");
    const settings = defaultSettings({ keepRecentImages: 1, minGainTokens: 1000 });
    const analysis = analyze(s.messages);
    const plan = planPrune({
      messages: s.messages,
      analysis,
      pruned: new Set(),
      pins: { ids: new Set(), tools: new Set(), paths: [] },
      settings,
      api: "anthropic-messages",
      replacement: (b: Block) => replacementFor(s.messages, b, settings),
    });
    expect(plan.counts.image).toBe(1);
    expect(plan.savedTokens).toBeGreaterThan(1500);
    expect(plan.savedTokens).toBeLessThan(1534);
    const tight = defaultSettings({ keepRecentImages: 1, minGainTokens: 2000 });
    const none = planPrune({
      messages: s.messages,
      analysis,
      pruned: new Set(),
      pins: { ids: new Set(), tools: new Set(), paths: [] },
      settings: tight,
      api: "anthropic-messages",
      replacement: (b: Block) => replacementFor(s.messages, b, tight),
    });
    expect(none.belowMinGain).toBe(true); // 75,000 "tokens" by length would have passed the gate
  });
});
