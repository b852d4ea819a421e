// Deterministic bench workload: 200 rules (literal-like and regex) and a code-like response full of near misses
// (words the rules start with) that matches none of them, so every matcher scans all of it.

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 100 literal-like and 100 regex rules, as pattern specs (accumulated window, like lifecycle rules). */
export function benchRules() {
  const specs = [];
  for (let i = 0; i < 100; i++) {
    const lit = [
      `forbiddenCall${i}\\(`,
      `legacy-module-${i}`,
      `@deprecated/pkg${i}`,
      `TODO\\(ticket-${i}\\)`,
      `oldApi\\.v${i}\\.`,
    ][i % 5];
    specs.push({ source: lit, flags: "", window: "accumulated" });
  }
  for (let i = 0; i < 100; i++) {
    const re = [
      `import\\s+\\{[^}]*OldThing${i}[^}]*\\}\\s+from`,
      `:\\s*Any${i}[\\s;,)\\]]`,
      `console\\.(log|debug|info)\\(\\s*"tag${i}`,
      `password${i}\\s*[=:]\\s*['"][^'"]{8,}`,
      `\\bnew\\s+Legacy${i}Client\\b`,
      `eval\\(\\s*user${i}`,
      `from\\s+['"]old-sdk-${i}/`,
      `setTimeout\\([^,]*,\\s*${1000 + i}\\d{3}\\)`,
    ][i % 8];
    specs.push({ source: re, flags: i % 3 === 0 ? "i" : "", window: "accumulated" });
  }
  return specs;
}

const IDENTS = ["value", "result", "config", "items", "client", "handler", "options", "index", "buffer", "state"];
const TYPES = ["string", "number", "boolean", "Record<string, unknown>", "Item[]", "Promise<void>"];

/** A TypeScript-looking response of about `size` characters. */
export function benchText(size, seed = 42) {
  const r = rng(seed);
  const pick = (a) => a[Math.floor(r() * a.length)];
  const lines = [];
  let len = 0;
  while (len < size) {
    const kind = Math.floor(r() * 11);
    let line;
    const id = pick(IDENTS);
    if (kind === 0) line = `import { ${pick(IDENTS)}, ${pick(IDENTS)} } from "./${pick(IDENTS)}.js";`;
    else if (kind === 1)
      line = `export function ${id}${Math.floor(r() * 100)}(${pick(IDENTS)}: ${pick(TYPES)}): ${pick(TYPES)} {`;
    else if (kind === 2)
      line = `  const ${id} = await ${pick(IDENTS)}.get(${pick(IDENTS)}, { retries: ${Math.floor(r() * 5)} });`;
    else if (kind === 3) line = `  console.log("processing", ${id}.length);`;
    else if (kind === 4) line = `  // The ${id} is ready; now update the ${pick(IDENTS)} and return.`;
    else if (kind === 5) line = `  if (${id} === undefined) throw new Error("missing ${id}");`;
    else if (kind === 6) line = `  return ${id}.map((x) => x * ${Math.floor(r() * 9)});`;
    else if (kind === 7) line = `  const client = new LegacyClient(); // not Legacy${Math.floor(r() * 100)}Client`;
    else if (kind === 8) line = `  const password = process.env.PASSWORD ?? ""; // token: read from env`;
    else if (kind === 9)
      line = `  import { OldThing } from "old-sdk"; // forbiddenCall${Math.floor(r() * 100)} is gone`;
    else line = "}";
    lines.push(line);
    len += line.length + 1;
  }
  return lines.join("\n").slice(0, size);
}

export function deltas(text, size = 4) {
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/**
 * The harder case for us: rules the automaton cannot decide alone. 40 rules with `\b` whose assertion-free
 * superset matches all over the text (every `value<i>x` is a candidate that the native check rejects), 10 with
 * lookarounds, and 10 with backreferences (native engine on the current line, every delta).
 */
export function verifyHeavyRules() {
  const specs = [];
  for (let i = 0; i < 40; i++) specs.push({ source: `\\bvalue${i}\\b`, flags: "", window: "accumulated" });
  for (let i = 0; i < 10; i++) specs.push({ source: `(?<!\\.)result${i}(?=\\s*=)`, flags: "", window: "accumulated" });
  for (let i = 0; i < 10; i++)
    specs.push({ source: `(\\w+)_${i}\\s*===\\s*\\1_${i}\\b`, flags: "", window: "accumulated" });
  return specs;
}

export function verifyHeavyText(size, seed = 42) {
  const r = rng(seed);
  const lines = [];
  let len = 0;
  while (len < size) {
    const i = Math.floor(r() * 40);
    const kind = Math.floor(r() * 4);
    let line;
    if (kind === 0) line = `  const value${i}x = compute(value${i}x, other.result${i % 10});`;
    else if (kind === 1) line = `  if (value${i}x === other${i % 10}) return value${i}xy;`;
    else if (kind === 2) line = `  this.result${i % 10} = value${i}x + 1; // value${i}x`;
    else line = `  log("value${i}x", result${i % 10}x);`;
    lines.push(line);
    len += line.length + 1;
  }
  return lines.join("\n").slice(0, size);
}

/**
 * 200 rules as people write them when a word must stand alone or a call must not follow a dot: 88 of the plain
 * bench rules and 112 with `\b`, lookarounds, `^` / `$`. Most of the latter take the automaton-plus-verification
 * path, whose load-time check (generated strings) is what compiling costs.
 */
export function assertionProbeRules() {
  const specs = benchRules().slice(0, 88);
  const shapes = [
    (i) => `\\bdeprecatedFn${i}\\b`,
    (i) => `(?<!\\.)oldCall${i}(?=\\s*\\()`,
    (i) => `^import .*legacy${i}`,
    (i) => `\\bany${i}\\b(?!\\s*=)`,
    (i) => `TODO${i}$`,
    (i) => `\\b(?:var|let)\\s+tmp${i}\\b`,
    (i) => `(?<=\\s)eval${i}\\(`,
    (i) => `\\bnew\\s+Legacy${i}Client\\b`,
  ];
  for (let i = 0; i < 112; i++) {
    specs.push({
      source: shapes[i % shapes.length](i),
      flags: i % 4 === 0 ? "m" : "",
      window: i % 5 === 0 ? "line" : "accumulated",
    });
  }
  return specs;
}
