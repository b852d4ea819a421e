import { readFileSync } from "node:fs";
import { cacheRetention } from "../clock/ttl.ts";
import { defaultSettings, loadCacheTtlSettings } from "../settings/settings.ts";
import { formatUsd, type Prices } from "./prices.ts";
import { type ReplayReport, replaySession } from "./replay.ts";
import { parseSessionFile } from "./session-file.ts";

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

const USAGE = "usage: cache-ttl report <session.jsonl> [--json] [--ttl <seconds>]";

/** Model prices from pi-ai's catalogue, when pi-ai is installed and knows the model; else zero (tokens only). */
async function pricesFor(provider: string | undefined, model: string | undefined): Promise<Prices> {
  const none = { input: 0, cacheRead: 0, cacheWrite: 0 };
  if (!provider || !model) return none;
  try {
    const ai = (await import("@mariozechner/pi-ai")) as {
      getModel: (p: string, m: string) => { cost?: Prices } | undefined;
    };
    return ai.getModel(provider, model)?.cost ?? none;
  } catch {
    return none;
  }
}

const n = (x: number) => x.toLocaleString("en-US");

function table(report: ReplayReport): string {
  const lines = [
    `model ${report.model ?? "unknown"}, TTL ${report.ttlSeconds}s, prices per M tokens: write $${report.prices.cacheWrite || report.prices.input}, read $${report.prices.cacheRead || report.prices.input}`,
    "req  idle(s)  cache  pruned  baseline write/read      with pruning write/read   cost saved",
  ];
  for (const r of report.requests) {
    lines.push(
      [
        String(r.index).padStart(3),
        String(r.idleSeconds ?? "-").padStart(8),
        (r.warm ? "warm" : "cold").padStart(6),
        String(r.pruned).padStart(7),
        `${n(r.baseline.writeTokens)}/${n(r.baseline.readTokens)}`.padStart(22),
        `${n(r.withPruning.writeTokens)}/${n(r.withPruning.readTokens)}`.padStart(26),
        formatUsd(r.baseline.cost - r.withPruning.cost).padStart(12),
      ].join(" "),
    );
  }
  const { baseline, withPruning, saved } = report.totals;
  lines.push(
    `total baseline: ${n(baseline.writeTokens)} written, ${n(baseline.readTokens)} read, ${formatUsd(baseline.cost)}`,
    `total with pruning: ${n(withPruning.writeTokens)} written, ${n(withPruning.readTokens)} read, ${formatUsd(withPruning.cost)}`,
    `saved: ${formatUsd(saved)}`,
  );
  return lines.join("\n");
}

/** `cache-ttl report <session.jsonl> [--json] [--ttl <s>]`; returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== "report") {
    io.err(USAGE);
    return 2;
  }
  let json = false;
  let ttl: number | undefined;
  let file: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (arg === "--json") json = true;
    else if (arg === "--ttl") ttl = Number(rest[++i]);
    else if (!arg.startsWith("-") && file === undefined) file = arg;
    else {
      io.err(USAGE);
      return 2;
    }
  }
  if (!file || (ttl !== undefined && !(ttl > 0))) {
    io.err(USAGE);
    return 2;
  }
  let session: ReturnType<typeof parseSessionFile>;
  try {
    session = parseSessionFile(readFileSync(file, "utf8"), file);
  } catch (error) {
    io.err(`cache-ttl: ${(error as Error).message}`);
    return 1;
  }
  if (session.skippedLines.length > 0) {
    const lines = session.skippedLines;
    io.err(
      `cache-ttl: ${file}: skipped ${lines.length} line(s) that are not JSON (as pi does): ${lines.slice(0, 10).join(", ")}${lines.length > 10 ? ", ..." : ""}`,
    );
  }
  const loaded = session.cwd ? loadCacheTtlSettings(session.cwd) : undefined;
  for (const p of loaded?.problems ?? []) io.err(`cache-ttl: ${p.file}: ${p.key}: ${p.message} (using defaults)`);
  const settings = loaded?.valid ? loaded.settings : defaultSettings();
  const last = session.requests.at(-1);
  const report = replaySession(session, {
    settings: { ...settings, enabled: true },
    ...(ttl !== undefined ? { ttlSeconds: ttl } : {}),
    retention: cacheRetention(),
    prices: await pricesFor(last?.provider, last?.model),
  });
  io.out(json ? JSON.stringify({ file, ...report }, null, 2) : table(report));
  return 0;
}
