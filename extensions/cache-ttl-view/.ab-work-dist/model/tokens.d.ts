import type { ImagePart, ViewMessage } from "./messages.ts";
/**
 * The one token estimate of this package (the notice, `/cache-ttl`, the `minGainTokens` gate and the report's
 * money all use it). Text is 4 chars per token. An image costs what its provider bills for its pixels, not the
 * length of its base64 (a 300 KB screenshot is about 1,600 tokens on Anthropic, not 75,000). Thinking from earlier
 * turns counts only where the API bills it: Anthropic and OpenAI Responses drop earlier turns' reasoning from the
 * input they bill.
 */
/** Text tokens: 4 chars per token, rounded up. */
export declare function textTokens(chars: number): number;
/** Width and height of a PNG, GIF, WebP or JPEG from its base64, without decoding more than its header. */
export declare function imageSize(base64: string): {
    width: number;
    height: number;
} | undefined;
/**
 * Tokens one image costs on `api`: Anthropic (w·h/750 after fitting 1568 px and 1.15 MP), OpenAI (85 + 170 per
 * 512 px tile after fitting 2048 px and a 768 px short side), Gemini (258 up to 384 px, else 258 per 768 px tile).
 * Unknown size or API: 1,600 (Anthropic's ceiling, the largest of the three for a typical screenshot).
 */
export declare function imageTokens(image: Pick<ImagePart, "data">, api: string | undefined): number;
/** Whether an earlier turn's thinking is billed as input on `api` (Anthropic and OpenAI Responses drop it). */
export declare function thinkingBilled(api: string | undefined): boolean;
/** Tokens of everything a provider is sent for this message, on `api`. */
export declare function messageTokens(m: ViewMessage, api: string | undefined): number;
//# sourceMappingURL=tokens.d.ts.map