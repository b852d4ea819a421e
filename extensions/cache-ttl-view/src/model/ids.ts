import { anchorsCustom, type CustomMsg, type ViewMessage } from "./messages.ts";

/**
 * Stable identities. pi's context event hands us deep copies without entry ids, so a message is known by its role,
 * timestamp (and tool call id; a custom message by its content and anchor, see `anchorBefore`); a block id is a short hash
 * of that key, short enough for the model to quote back to `context_restore`, stable across processes so persisted
 * prune sets apply after a reload.
 */

/** 32-bit FNV-1a of `prefix + text` (without building that string), as an unsigned number. */
export function hash32(prefix: string, text: string, seed = 0x811c9dc5): number {
  let h = seed;
  for (let i = 0; i < prefix.length; i++) {
    h ^= prefix.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The seed of the owner hash (`ownerHash`). */
const OWNER_SEED = 0x9747b28c;

/**
 * `hash32(prefix, text)` and `ownerHash(prefix, text)` in one pass, written to `out` ([id hash, owner hash]): the
 * analysis hashes every block's source and keeps both, so the owners of a prune need no second pass.
 */
export function hashBoth(prefix: string, text: string, out: Uint32Array): void {
  let h = 0x811c9dc5;
  let o = OWNER_SEED;
  for (let i = 0; i < prefix.length; i++) {
    const c = prefix.charCodeAt(i);
    h = Math.imul(h ^ c, 0x01000193);
    o = Math.imul(o ^ c, 0x01000193);
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h = Math.imul(h ^ c, 0x01000193);
    o = Math.imul(o ^ c, 0x01000193);
  }
  out[0] = h;
  out[1] = o;
}

/** Decimal digits of a timestamp, least significant first (no string per message: see `hashMessageKey`). */
const DIGITS = new Uint8Array(16);

/**
 * `hashBoth(prefix, rawMessageKey(m, anchor), out)` without building the key: a role and a timestamp that is a safe
 * non-negative integer (every message pi writes) are hashed as `String` would write them; anything else goes through
 * the key string. The analysis hashes the key of every message with prose (building 50,000 key strings of a long
 * session, numbers formatted, cost about 5 ms of a cold pass).
 */
export function hashMessageKey(prefix: string, m: ViewMessage, out: Uint32Array, anchor = 0): void {
  const { role, timestamp } = m as { role: unknown; timestamp: unknown };
  const plain =
    timestamp === undefined || timestamp === null || (Number.isSafeInteger(timestamp) && (timestamp as number) >= 0);
  if (typeof role !== "string" || role === "toolResult" || role === "custom" || !plain) {
    hashBoth(prefix, rawMessageKey(m, anchor), out);
    return;
  }
  // The key's chars: prefix, role, ":" (58), then the timestamp's digits.
  const head = prefix.length + role.length;
  let h = 0x811c9dc5;
  let o = OWNER_SEED;
  for (let i = 0; i <= head; i++) {
    const c = i === head ? 58 : i < prefix.length ? prefix.charCodeAt(i) : role.charCodeAt(i - prefix.length);
    h = Math.imul(h ^ c, 0x01000193);
    o = Math.imul(o ^ c, 0x01000193);
  }
  if (typeof timestamp === "number") {
    let n = timestamp;
    let k = 0;
    do {
      DIGITS[k++] = 48 + (n % 10);
      n = Math.floor(n / 10);
    } while (n > 0);
    while (k > 0) {
      const c = DIGITS[--k] as number;
      h = Math.imul(h ^ c, 0x01000193);
      o = Math.imul(o ^ c, 0x01000193);
    }
  }
  out[0] = h;
  out[1] = o;
}

const HEX = "0123456789abcdef";

/** A 32-bit hash as 8 hex chars (one string allocation: this runs for every block of every pass). */
export function hex8(h: number): string {
  const c = (shift: number) => HEX.charCodeAt((h >>> shift) & 15);
  return String.fromCharCode(c(28), c(24), c(20), c(16), c(12), c(8), c(4), c(0));
}

/**
 * A custom message (what an extension adds: memory, rules, steering) is not known by its timestamp: pi stamps it when
 * it makes it (`Date.now()`) but its session entry when it saves it (later: after every `message_end` handler), and a
 * resumed, navigated or compacted session's context is built from the entries, so the same message comes back with
 * another timestamp. Its key names its type, its content (saved as it was) and its **anchor**: the timestamp of the
 * nearest message before it that is neither a custom nor a system message (the prompt it was added to, a tool
 * result; 0 when none), which pi saves as it was. An extension that adds the same text to every prompt adds messages with one content and
 * different anchors: each keeps its own id and owner, also after a compaction cuts the older ones.
 */
export function anchorBefore(messages: readonly ViewMessage[], i: number): number {
  for (let k = i - 1; k >= 0; k--) {
    const m = messages[k] as ViewMessage;
    if (anchorsCustom(m)) return momentOf(m, 0);
  }
  return 0;
}

/**
 * The time a message's key and its blocks' owners are read from: its timestamp (a safe integer, else 0), and for a
 * custom message its anchor (see `anchorBefore`).
 */
export function momentOf(m: ViewMessage, anchor: number): number {
  if (m.role === "custom") return anchor;
  const t = m.timestamp;
  return Number.isSafeInteger(t) ? (t as number) : 0;
}

/** What a custom message's key is checked by first, without hashing: the length of its content. */
function customLength(m: CustomMsg): number {
  const content = m.content as unknown;
  if (typeof content === "string") return content.length;
  let n = 0;
  for (const part of Array.isArray(content) ? (content as { text?: unknown; data?: unknown }[]) : []) {
    if (typeof part?.text === "string") n += part.text.length;
    else if (typeof part?.data === "string") n += part.data.length;
  }
  return n;
}

/**
 * A hash of a custom message's type and content. An image counts by its type, size and first bytes (the header,
 * which holds its dimensions), not by the whole base64.
 */
export function customMessageHash(m: CustomMsg): number {
  let h = hash32("c:", String(m.customType));
  const content = m.content as unknown;
  if (typeof content === "string") return hash32("\u0000s", content, h);
  for (const part of Array.isArray(content)
    ? (content as { text?: unknown; data?: unknown; mimeType?: unknown }[])
    : []) {
    if (typeof part?.text === "string") h = hash32("\u0000t", part.text, h);
    else if (typeof part?.data === "string") {
      h = hash32(`\u0000i${String(part.mimeType)}:${part.data.length}:`, part.data.slice(0, 128), h);
    }
  }
  return h;
}

/**
 * Key of a message (before de-duplication of equal keys). `anchor`: for a custom message, the timestamp of the nearest
 * message before it that is not one (`anchorBefore`); its key is `c:<type>:<anchor>.<length>.<content hash>`.
 */
export function rawMessageKey(m: ViewMessage, anchor = 0): string {
  if (m.role === "toolResult") return `r:${String((m as { toolCallId?: unknown }).toolCallId)}`;
  if (m.role === "custom") {
    const c = m as CustomMsg;
    return `c:${String(c.customType)}:${anchor}.${customLength(c)}.${hex8(customMessageHash(c))}`;
  }
  return `${m.role}:${m.timestamp ?? ""}`;
}

/**
 * What a raw key can only match: the tool call id of a result, a custom message's content length, else the timestamp.
 * Scans compare these fields and build a message's key only on a hit (building 100k key strings costs more than the
 * rest of the scan; hashing every custom message's content would too).
 */
function discriminator(m: ViewMessage): unknown {
  if (m.role === "toolResult") return (m as { toolCallId?: unknown }).toolCallId;
  return m.role === "custom" ? customLength(m as CustomMsg) : m.timestamp;
}

/**
 * Whether `messages` starts with the messages of `prefix`, message by message (role and discriminator: no key
 * strings built). What a list prepared from the session file must pass before a request's list may extend it.
 */
export function startsWithMessages(messages: readonly ViewMessage[], prefix: readonly ViewMessage[]): boolean {
  if (messages.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) {
    const [a, b] = [messages[i] as ViewMessage, prefix[i] as ViewMessage];
    if (a.role !== b.role || discriminator(a) !== discriminator(b)) return false;
  }
  return true;
}

function discriminatorOfKey(raw: string): unknown {
  if (raw.startsWith("r:")) return raw.slice(2);
  const tail = raw.slice(raw.lastIndexOf(":") + 1);
  // A custom message's `<anchor>.<length>.<hash>` (a key written before, with its timestamp, matches no message now).
  if (raw.startsWith("c:")) {
    const length = tail.split(".")[1];
    return length === undefined ? undefined : Number(length);
  }
  return tail === "" ? undefined : Number(tail);
}

/**
 * Key of message `i`: its raw key, with `#2`, `#3`, ... when the same raw key occurred before it. Computed on
 * demand (one scan): keeping the keys of every message between requests would cost more than the view itself.
 */
export function messageKeyAt(messages: readonly ViewMessage[], i: number): string {
  const target = messages[i] as ViewMessage;
  const raw = rawMessageKey(target, anchorBefore(messages, i));
  const d = discriminator(target);
  let n = 1;
  let anchor = 0;
  for (let k = 0; k < i; k++) {
    const m = messages[k] as ViewMessage;
    if (discriminator(m) === d && rawMessageKey(m, anchor) === raw) n++;
    if (anchorsCustom(m)) anchor = momentOf(m, 0);
  }
  return n === 1 ? raw : `${raw}#${n}`;
}

/** Indexes of the messages whose keys are in `wanted` (one scan, counting repeats only for wanted raw keys). */
export function findMessageKeys(messages: readonly ViewMessage[], wanted: ReadonlySet<string>): Map<string, number> {
  const found = new Map<string, number>();
  const raws = new Set<string>();
  const candidates = new Set<unknown>();
  for (const key of wanted) {
    const raw = key.replace(/#\d+$/, "");
    raws.add(raw);
    candidates.add(discriminatorOfKey(raw));
  }
  const seen = new Map<string, number>();
  let anchor = 0;
  for (let i = 0; i < messages.length && found.size < wanted.size; i++) {
    const m = messages[i] as ViewMessage;
    const before = anchor;
    if (anchorsCustom(m)) anchor = momentOf(m, 0);
    if (!candidates.has(discriminator(m))) continue;
    const raw = rawMessageKey(m, before);
    if (!raws.has(raw)) continue;
    const n = (seen.get(raw) ?? 0) + 1;
    seen.set(raw, n);
    const key = n === 1 ? raw : `${raw}#${n}`;
    if (wanted.has(key) && !found.has(key)) found.set(key, i);
  }
  return found;
}

/**
 * A second, independent 32-bit hash of a block's source: the owner stored with each pruned id by versions before
 * owners named the content (`contentOwner`); such registrations are still read back ("legacy" owners).
 */
export const ownerHash = (prefix: string, text: string): number => hash32(prefix, text, OWNER_SEED);

/**
 * The owner stored with each pruned id (owner version 2): the source's owner hash mixed with numbers that never
 * change for a block (its message's timestamp, and a tool call's part). Two calls with the same id (a provider that
 * numbers tool calls `call_0` in every response) have different owners, so an id the model has seen keeps naming its
 * own block after a reload or a compaction, and is never handed to the other one. Integers up to 2^53 are mixed
 * whole; anything else (a damaged timestamp) as zero.
 */
export function contentOwner(sourceOwner: number, a: number, b = 0): number {
  const h = mixWord(mixWord(sourceOwner, a % 4_294_967_296), Math.floor(a / 4_294_967_296));
  return mixWord(h, b) >>> 0;
}

/** FNV-1a steps over the two 16-bit halves of a 32-bit word (no array per call: this runs for every block). */
function mixWord(h: number, word: number): number {
  const w = word >>> 0;
  return Math.imul(Math.imul(h ^ (w & 0xffff), 0x01000193) ^ (w >>> 16), 0x01000193);
}
