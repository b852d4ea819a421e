import { readFileSync } from "node:fs";
import {
  type CliOutput,
  EXIT,
  formatHelp,
  parseCliArgs,
  RefusedError,
  runCommand,
  UsageError,
} from "@pi-rails/agent-core/kit";
import { cacheRetention, type TtlModel } from "../clock/ttl.ts";
import { defaultSettings, loadCacheTtlSettings } from "../settings/settings.ts";
import { formatUsd, type Prices } from "./prices.ts";
import { type ReplayReport, replaySession } from "./replay.ts";
import { parseSessionFile } from "./session-file.ts";

/** What the report reads of a catalogue model: its prices, and what decides its cache TTL. */
type CatalogModel = TtlModel & { cost?: Prices };

/**
 * The models of pi-ai's built-in catalogue the session's requests name (`provider/id`), when pi-ai is installed
 * (an optional peer: the report then shows tokens only, and derives each TTL from the request's API alone).
 */
async function catalogFor(
  requests: readonly { provider?: string; model?: string }[],
): Promise<Map<string, CatalogModel>> {
  const out = new Map<string, CatalogModel>();
  let find: ((provider: string, id: string) => CatalogModel | undefined) | undefined;
  try {
    const all = (await import("@earendil-works/pi-ai/providers/all")) as unknown as {
      getBuiltinModel: (provider: string, id: string) => CatalogModel | undefined;
    };
    find = all.getBuiltinModel;
  } catch {
    return out;
  }
  for (const r of requests) {
    if (!r.provider || !r.model || out.has(`${r.provider}/${r.model}`)) continue;
    let model: CatalogModel | undefined;
    try {
      model = find(r.provider, r.model);
    } catch {
      model = undefined;
    }
    if (model) out.set(`${r.provider}/${r.model}`, model);
  }
  return out;
}

const n = (x: number) => x.toLocaleString("en-US");

function table(report: ReplayReport): string {
  const lines = [
    report.mode === "recorded"
      ? "with pruning: what cache-ttl-view did in this session (its saved prunes, pins and restores)"
      : "with pruning: what cache-ttl-view would do with these settings",
    `model ${report.model ?? "unknown"}, TTL ${report.ttlSeconds}s, prices per M tokens: write $${report.prices.cacheWrite || report.prices.input}, read $${report.prices.cacheRead || report.prices.input}`,
    "req  idle(s)  cache  pruned  baseline write/read      with pruning write/read   cost saved",
  ];
  if (report.requests.some((r) => r.cacheWarms)) {
    lines.splice(2, 0, "cache warmed: pi's cache warming re-sent the previous request since (its cost is not counted)");
  }
  for (const r of report.requests) {
    lines.push(
      [
        String(r.index).padStart(3),
        String(r.idleSeconds ?? "-").padStart(8),
        (r.warm ? (r.cacheWarms ? "warmed" : "warm") : "cold").padStart(6),
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

export const USAGE = formatHelp({
  title: "cache-ttl: what pruning after the prompt cache expired would have saved in a recorded session",
  commands: [
    ["cache-ttl report <session.jsonl> [--ttl <seconds>]", "replay the session's requests with and without pruning"],
  ],
  options: [
    [
      "--ttl <seconds>",
      "the provider's cache TTL (default: the one the extension stored, else the model's API's); simulates what the extension would do with it",
    ],
  ],
  exit1: "the session file cannot be read",
});

/** `cache-ttl report <session.jsonl> [--json] [--ttl <s>]`; returns the kit's exit code. Never throws. */
export async function main(argv: string[], io: CliOutput): Promise<number> {
  return runCommand("cache-ttl", { ...io, json: argv.includes("--json"), usage: USAGE }, () => runReport(argv, io));
}

async function runReport(argv: string[], io: CliOutput): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, { ttl: { type: "string" } });
  if (values.help) {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  const [command, file, ...extra] = positionals;
  if (command !== "report") throw new UsageError(command ? `unknown command "${command}"` : "no command given");
  if (!file) throw new UsageError("report: missing <session.jsonl>");
  if (extra.length > 0) throw new UsageError(`report takes one session file (got also ${extra.join(", ")})`);
  const ttl = values.ttl === undefined ? undefined : Number(values.ttl);
  if (ttl !== undefined && !(ttl > 0))
    throw new UsageError(`--ttl must be a number of seconds above 0 (got "${values.ttl}")`);
  let session: ReturnType<typeof parseSessionFile>;
  try {
    session = parseSessionFile(readFileSync(file, "utf8"), file);
  } catch (error) {
    throw new RefusedError((error as Error).message);
  }
  if (session.skippedLines.length > 0) {
    const lines = session.skippedLines;
    io.stderr(
      `cache-ttl: ${file}: skipped ${lines.length} line(s) that are not JSON (as pi does): ${lines.slice(0, 10).join(", ")}${lines.length > 10 ? ", ..." : ""}\n`,
    );
  }
  const loaded = session.cwd ? loadCacheTtlSettings(session.cwd) : undefined;
  for (const p of loaded?.problems ?? []) io.stderr(`cache-ttl: ${p.file}: ${p.key}: ${p.message}\n`);
  const settings = loaded?.valid ? loaded.settings : defaultSettings();
  const last = session.requests.at(-1);
  const catalog = await catalogFor(session.requests);
  const none = { input: 0, cacheRead: 0, cacheWrite: 0 };
  const report = replaySession(session, {
    settings: { ...settings, enabled: true },
    ...(ttl !== undefined ? { ttlSeconds: ttl } : {}),
    retention: cacheRetention(),
    prices: catalog.get(`${last?.provider}/${last?.model}`)?.cost ?? none,
    catalog,
  });
  io.stdout(`${values.json ? JSON.stringify({ file, ...report }, null, 2) : table(report)}\n`);
  return 0;
}
