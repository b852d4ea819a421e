import { Buffer } from "node:buffer";
import type { ImagePart, ViewMessage } from "./messages.ts";

/**
 * The one token estimate of this package (the notice, `/cache-ttl`, the `minGainTokens` gate and the report's
 * money all use it). Text is 4 chars per token. An image costs what its provider bills for its pixels, not the
 * length of its base64 (a 300 KB screenshot is about 1,600 tokens on Anthropic, not 75,000). Thinking from earlier
 * turns counts only where the API bills it: Anthropic and OpenAI Responses drop earlier turns' reasoning from the
 * input they bill.
 */

/** Text tokens: 4 chars per token, rounded up. */
export function textTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

/** Width and height of a PNG, GIF, WebP or JPEG from its base64, without decoding more than its header. */
export function imageSize(base64: string): { width: number; height: number } | undefined {
  const head = Buffer.from(base64.slice(0, 32), "base64");
  if (head.length >= 24 && head.readUInt32BE(0) === 0x89504e47) {
    return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
  }
  if (head.length >= 10 && head.toString("latin1", 0, 4) === "GIF8") {
    return { width: head.readUInt16LE(6), height: head.readUInt16LE(8) };
  }
  if (head.length >= 16 && head.toString("latin1", 0, 4) === "RIFF" && head.toString("latin1", 8, 12) === "WEBP") {
    const webp = Buffer.from(base64.slice(0, 40), "base64");
    const kind = webp.toString("latin1", 12, 16);
    if (kind === "VP8X" && webp.length >= 30) {
      return { width: 1 + webp.readUIntLE(24, 3), height: 1 + webp.readUIntLE(27, 3) };
    }
    if (kind === "VP8L" && webp.length >= 25) {
      const bits = webp.readUInt32LE(21);
      return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
    }
    if (kind === "VP8 " && webp.length >= 30) {
      return { width: webp.readUInt16LE(26) & 0x3fff, height: webp.readUInt16LE(28) & 0x3fff };
    }
    return undefined;
  }
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xd8) return jpegSize(base64);
  return undefined;
}

function jpegSize(base64: string): { width: number; height: number } | undefined {
  // The frame header (SOFn) follows the APPn segments (EXIF can be 64 KB): read up to 256 KB of bytes.
  const bytes = Buffer.from(base64.slice(0, 350_000), "base64");
  let i = 2;
  while (i + 9 < bytes.length) {
    if (bytes[i] !== 0xff) return undefined;
    const marker = bytes[i + 1] as number;
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    const length = bytes.readUInt16BE(i + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { width: bytes.readUInt16BE(i + 7), height: bytes.readUInt16BE(i + 5) };
    i += 2 + length;
  }
  return undefined;
}

type Family = "anthropic" | "openai" | "google" | "other";

function family(api: string | undefined): Family {
  switch (api) {
    case "anthropic-messages":
    case "bedrock-converse-stream":
      return "anthropic";
    case "openai-responses":
    case "azure-openai-responses":
    case "openai-codex-responses":
    case "openai-completions":
      return "openai";
    case "google-generative-ai":
    case "google-vertex":
      return "google";
    default:
      return "other";
  }
}

/**
 * Tokens one image costs on `api`: Anthropic (w·h/750 after fitting 1568 px and 1.15 MP), OpenAI (85 + 170 per
 * 512 px tile after fitting 2048 px and a 768 px short side), Gemini (258 up to 384 px, else 258 per 768 px tile).
 * Unknown size or API: 1,600 (Anthropic's ceiling, the largest of the three for a typical screenshot).
 */
export function imageTokens(image: Pick<ImagePart, "data">, api: string | undefined): number {
  const size = imageSize(image.data);
  if (!size || size.width <= 0 || size.height <= 0) return 1600;
  let { width: w, height: h } = size;
  switch (family(api)) {
    case "anthropic": {
      const scale = Math.min(1, 1568 / Math.max(w, h), Math.sqrt(1_150_000 / (w * h)));
      return Math.max(1, Math.ceil((w * scale * (h * scale)) / 750));
    }
    case "openai": {
      const fit = Math.min(1, 2048 / Math.max(w, h));
      w *= fit;
      h *= fit;
      const shrink = Math.min(1, 768 / Math.min(w, h));
      w *= shrink;
      h *= shrink;
      return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
    }
    case "google":
      return w <= 384 && h <= 384 ? 258 : 258 * Math.ceil(w / 768) * Math.ceil(h / 768);
    default: {
      const scale = Math.min(1, 1568 / Math.max(w, h), Math.sqrt(1_150_000 / (w * h)));
      return Math.max(1, Math.ceil((w * scale * (h * scale)) / 750));
    }
  }
}

/** Whether an earlier turn's thinking is billed as input on `api` (Anthropic and OpenAI Responses drop it). */
export function thinkingBilled(api: string | undefined): boolean {
  const f = family(api);
  return !(f === "anthropic" || (f === "openai" && api !== "openai-completions"));
}

/** Tokens of everything a provider is sent for this message, on `api`. */
export function messageTokens(m: ViewMessage, api: string | undefined): number {
  let chars = 0;
  let tokens = 0;
  const content = (m as { content?: unknown }).content;
  if (typeof content === "string") chars += content.length;
  else if (Array.isArray(content)) {
    for (const part of content as Record<string, unknown>[]) {
      if (typeof part["text"] === "string") chars += part["text"].length;
      else if (part["type"] === "thinking") {
        if (thinkingBilled(api) && typeof part["thinking"] === "string") chars += part["thinking"].length;
      } else if (part["type"] === "image" && typeof part["data"] === "string") {
        tokens += imageTokens(part as unknown as ImagePart, api);
      } else if (part["type"] === "toolCall") chars += JSON.stringify(part["arguments"] ?? {}).length + 40;
    }
  }
  if (m.role === "bashExecution") {
    const b = m as { command?: unknown; output?: unknown };
    chars += String(b.command ?? "").length + String(b.output ?? "").length;
  }
  const summary = (m as { summary?: unknown }).summary;
  if (typeof summary === "string") chars += summary.length;
  return tokens + textTokens(chars);
}
