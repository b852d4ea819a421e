/**
 * Stable identities. pi's context event hands us deep copies without entry ids, so a message is known by its role,
 * timestamp (and tool call id); a block id is a short hash of that key, short enough for the model to quote back
 * to `context_restore`, stable across processes so persisted prune sets apply after a reload.
 */
/** 32-bit FNV-1a of `prefix + text` (without building that string), as an unsigned number. */
export function hash32(prefix, text, seed = 0x811c9dc5) {
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
export function hashBoth(prefix, text, out) {
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
const HEX = "0123456789abcdef";
/** A 32-bit hash as 8 hex chars (one string allocation: this runs for every block of every pass). */
export function hex8(h) {
    const c = (shift) => HEX.charCodeAt((h >>> shift) & 15);
    return String.fromCharCode(c(28), c(24), c(20), c(16), c(12), c(8), c(4), c(0));
}
/** Key of a message (before de-duplication of equal keys). */
export function rawMessageKey(m) {
    if (m.role === "toolResult")
        return `r:${String(m.toolCallId)}`;
    if (m.role === "custom")
        return `c:${String(m.customType)}:${m.timestamp ?? ""}`;
    return `${m.role}:${m.timestamp ?? ""}`;
}
/**
 * What a raw key can only match: the tool call id of a result, else the timestamp. Scans compare these fields and
 * build a message's key only on a hit (building 100k key strings costs more than the rest of the scan).
 */
function discriminator(m) {
    return m.role === "toolResult" ? m.toolCallId : m.timestamp;
}
/**
 * Whether `messages` starts with the messages of `prefix`, message by message (role and discriminator: no key
 * strings built). What a list prepared from the session file must pass before a request's list may extend it.
 */
export function startsWithMessages(messages, prefix) {
    if (messages.length < prefix.length)
        return false;
    for (let i = 0; i < prefix.length; i++) {
        const [a, b] = [messages[i], prefix[i]];
        if (a.role !== b.role || discriminator(a) !== discriminator(b))
            return false;
    }
    return true;
}
function discriminatorOfKey(raw) {
    if (raw.startsWith("r:"))
        return raw.slice(2);
    const ts = raw.slice(raw.lastIndexOf(":") + 1);
    return ts === "" ? undefined : Number(ts);
}
/**
 * Key of message `i`: its raw key, with `#2`, `#3`, ... when the same raw key occurred before it. Computed on
 * demand (one scan): keeping the keys of every message between requests would cost more than the view itself.
 */
export function messageKeyAt(messages, i) {
    const target = messages[i];
    const raw = rawMessageKey(target);
    const d = discriminator(target);
    let n = 1;
    for (let k = 0; k < i; k++) {
        const m = messages[k];
        if (discriminator(m) === d && rawMessageKey(m) === raw)
            n++;
    }
    return n === 1 ? raw : `${raw}#${n}`;
}
/** Indexes of the messages whose keys are in `wanted` (one scan, counting repeats only for wanted raw keys). */
export function findMessageKeys(messages, wanted) {
    const found = new Map();
    const raws = new Set();
    const candidates = new Set();
    for (const key of wanted) {
        const raw = key.replace(/#\d+$/, "");
        raws.add(raw);
        candidates.add(discriminatorOfKey(raw));
    }
    const seen = new Map();
    for (let i = 0; i < messages.length && found.size < wanted.size; i++) {
        const m = messages[i];
        if (!candidates.has(discriminator(m)))
            continue;
        const raw = rawMessageKey(m);
        if (!raws.has(raw))
            continue;
        const n = (seen.get(raw) ?? 0) + 1;
        seen.set(raw, n);
        const key = n === 1 ? raw : `${raw}#${n}`;
        if (wanted.has(key) && !found.has(key))
            found.set(key, i);
    }
    return found;
}
/**
 * A second, independent 32-bit hash of a block's source: stored with each pruned id as the id's owner, so an id the
 * model has seen keeps naming the same block after the blocks before it are gone (compaction), and is never handed
 * to another block whose source hashes alike.
 */
export const ownerHash = (prefix, text) => hash32(prefix, text, OWNER_SEED);
//# sourceMappingURL=ids.js.map