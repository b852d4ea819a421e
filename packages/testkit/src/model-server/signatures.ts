/**
 * Signatures the servers put on thinking (Anthropic `signature`, Responses `encrypted_content`, Gemini
 * `thoughtSignature`) and check in strict mode: an HMAC over the signed text, so a block whose text was
 * changed, or a signature made up by the client, no longer verifies, as with the real APIs.
 */
import { createHmac } from "node:crypto";

const KEY = "pi-rails-testkit-thinking";

/** Base64 signature of `text` (valid base64, as Gemini requires of `thoughtSignature`). */
export function signText(text: string): string {
  return createHmac("sha256", KEY).update(text).digest("base64");
}

/** Whether `signature` is the one `signText(text)` gives. */
export function verifyText(text: string, signature: unknown): boolean {
  return typeof signature === "string" && signature === signText(text);
}

/**
 * An opaque, self-verifying payload for hidden thinking (Anthropic `redacted_thinking.data`): the text in
 * base64 and its signature, so a changed or made-up payload does not verify.
 */
export function sealText(text: string): string {
  return `${Buffer.from(text, "utf8").toString("base64")}.${signText(text)}`;
}

/** Whether `data` is a payload `sealText` made. */
export function verifySealed(data: unknown): boolean {
  if (typeof data !== "string") return false;
  const dot = data.indexOf(".");
  if (dot < 0) return false;
  return verifyText(Buffer.from(data.slice(0, dot), "base64").toString("utf8"), data.slice(dot + 1));
}
