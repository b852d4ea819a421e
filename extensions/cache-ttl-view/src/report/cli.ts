import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type CliOutput, defineCli, RefusedError, resolveAgentDir, UsageError } from "@pi-rails/agent-core/kit";
import { cacheRetention, type TtlModel } from "../clock/ttl.ts";
import { defaultSettings, loadCacheTtlSettings } from "../settings/settings.ts";
import { formatUsd, type Prices } from "./prices.ts";
import { type ReplayReport, replaySession, warmingNote } from "./replay.ts";
import { parseSessionFile } from "./session-file.ts";

/** What the report reads of a catalogue model: its prices, and what decides its cache TTL. */
type CatalogModel = TtlModel & { cost?: Prices };

/** What the report needs of pi (an optional peer): its models as pi resolves them, and its project trust. */
interface PiHost {
  model(provider: string, id: string): CatalogModel | undefined;
  projectTrusted(cwd: string): boolean;
}

/**
 * pi's view of the models and of the project, read from the user's agent dir as pi reads it: `models.json` (a
 * proxy's or a local server's model, its `promptCache`) and pi's built-in catalogue through pi's `ModelRuntime`,
 * and the project trust pi's `-p` mode would decide (the trust store, else `defaultProjectTrust`; "ask" cannot be
 * asked here: not trusted, as in `pi -p`). Without pi installed: pi-ai's built-in catalogue and a trusted project;
 * without pi-ai either, no model (tokens only, the TTL from the request's API alone). pi is loaded only when one of
 * those can differ from pi-ai's catalogue and a trusted project (`needed`): it costs about 2 s of CPU to import.
 */
async function piHost(
  agentDir: string,
  userSettings: Record<string, unknown> | undefined,
  needed: boolean,
): Promise<PiHost> {
  const pi = needed ? await piItself(agentDir, userSettings) : undefined;
  if (pi) return pi;
  try {
    const all = (await import("@earendil-works/pi-ai/providers/all")) as unknown as {
      getBuiltinModel: (provider: string, id: string) => CatalogModel | undefined;
    };
    return { model: all.getBuiltinModel, projectTrusted: () => true };
  } catch {
    return { model: () => undefined, projectTrusted: () => true };
  }
}

/** `piHost` from pi's own modules; `undefined` when pi is not installed (an optional peer). */
async function piItself(
  agentDir: string,
  userSettings: Record<string, unknown> | undefined,
): Promise<PiHost | undefined> {
  try {
    const pi = await import("@earendil-works/pi-coding-agent");
    const runtime = await pi.ModelRuntime.create({
      authPath: join(agentDir, "auth.json"),
      modelsPath: join(agentDir, "models.json"),
    });
    const store = new pi.ProjectTrustStore(agentDir);
    return {
      model: (provider, id) => runtime.getModel(provider, id) as CatalogModel | undefined,
      projectTrusted: (cwd) => {
        const decision = store.get(cwd);
        if (!pi.hasTrustRequiringProjectResources(cwd)) return decision ?? true;
        if (decision !== null) return decision;
        return userSettings?.["defaultProjectTrust"] === "always";
      },
    };
  } catch {
    return undefined;
  }
}

/** The models the session's requests name (`provider/id`), as pi knows them. */
function catalogFor(
  host: PiHost,
  requests: readonly { provider?: string; model?: string }[],
): Map<string, CatalogModel> {
  const out = new Map<string, CatalogModel>();
  for (const r of requests) {
    if (!r.provider || !r.model || out.has(`${r.provider}/${r.model}`)) continue;
    let model: CatalogModel | undefined;
    try {
      model = host.model(r.provider, r.model);
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
    report.ttlSeconds === null
      ? `model ${report.model ?? "unknown"}: pruning is off: ${report.ttl.reason} (as in the extension); the cache columns assume a ${report.cacheSeconds}s cache`
      : `model ${report.model ?? "unknown"}, TTL ${report.ttlSeconds}s (${report.ttl.reason})`,
    `prices per M tokens: write $${report.prices.cacheWrite || report.prices.input}, read $${report.prices.cacheRead || report.prices.input}`,
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
    const note = warmingNote(r);
    if (note) lines.push(`    ${note}`);
  }
  const { baseline, withPruning, saved } = report.totals;
  lines.push(
    `total baseline: ${n(baseline.writeTokens)} written, ${n(baseline.readTokens)} read, ${formatUsd(baseline.cost)}`,
    `total with pruning: ${n(withPruning.writeTokens)} written, ${n(withPruning.readTokens)} read, ${formatUsd(withPruning.cost)}`,
    `saved: ${formatUsd(saved)}`,
  );
  return lines.join("\n");
}

/** The longest `--ttl` taken: a year (no provider keeps a prompt cache for more than a day). */
const MAX_TTL_SECONDS = 365 * 86_400;

/**
 * `--ttl`'s value: a plain decimal number of seconds above 0, up to a year (`300`, `0.5`, `3.6e3`). Anything else is
 * a usage error naming what was given: `1e400` (Infinity), `NaN`, `0x10`, `-5`, `0`, `1e-400` (0), `5s`, nothing.
 */
export function parseTtl(text: string): number {
  const seconds = /^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_TTL_SECONDS) {
    throw new UsageError(
      `--ttl must be a number of seconds above 0 and at most ${MAX_TTL_SECONDS} (a year), like 300 (got "${text}")`,
    );
  }
  return seconds;
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, ""));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The cache-ttl bin (the kit's `runCli` around `report`): exit 0 done, 1 the session file cannot be read, 2 usage. */
export const cli = defineCli({
  bin: "cache-ttl",
  help: {
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
  },
  options: { ttl: { type: "string" } },
  run: async ({ values, positionals }, io) => {
    const [command, file, ...extra] = positionals;
    if (command !== "report") throw new UsageError(command ? `unknown command "${command}"` : "no command given");
    if (!file) throw new UsageError("report: missing <session.jsonl>");
    if (extra.length > 0) throw new UsageError(`report takes one session file (got also ${extra.join(", ")})`);
    const ttl = values.ttl === undefined ? undefined : parseTtl(values.ttl);
    let session: ReturnType<typeof parseSessionFile>;
    try {
      session = parseSessionFile(readFileSync(resolve(io.cwd, file), "utf8"), file);
    } catch (error) {
      throw new RefusedError((error as Error).message);
    }
    if (session.skippedLines.length > 0) {
      const lines = session.skippedLines;
      io.stderr(
        `cache-ttl: ${file}: skipped ${lines.length} line(s) that are not JSON (as pi does): ${lines.slice(0, 10).join(", ")}${lines.length > 10 ? ", ..." : ""}\n`,
      );
    }
    const agentDir = resolve(io.cwd, resolveAgentDir(io.env));
    // pi's own models (models.json) or its trust decision can matter only when there is a models.json, or a cacheTtl
    // section in the project's settings.
    const needPi =
      existsSync(join(agentDir, "models.json")) ||
      (session.cwd !== undefined && readJson(join(session.cwd, ".pi", "settings.json"))?.["cacheTtl"] !== undefined);
    const host = await piHost(agentDir, readJson(join(agentDir, "settings.json")), needPi);
    // The settings as the extension would read them in that project: the same files, the same trust.
    const loaded = session.cwd
      ? loadCacheTtlSettings(session.cwd, agentDir, { projectTrusted: host.projectTrusted(session.cwd) })
      : undefined;
    for (const p of loaded?.issues ?? []) io.stderr(`cache-ttl: ${p.file}: ${p.key}: ${p.message}\n`);
    const settings = loaded?.settings ?? defaultSettings();
    const last = session.requests.at(-1);
    const catalog = catalogFor(host, session.requests);
    const none = { input: 0, cacheRead: 0, cacheWrite: 0 };
    const report = replaySession(session, {
      // `--ttl` asks what the extension would do with that TTL: on, whatever the settings say.
      settings: ttl !== undefined ? { ...settings, enabled: true } : settings,
      settingsValid: loaded?.valid ?? true,
      ...(ttl !== undefined ? { ttlSeconds: ttl } : {}),
      retention: cacheRetention(),
      prices: catalog.get(`${last?.provider}/${last?.model}`)?.cost ?? none,
      catalog,
    });
    io.result({ file, ...report }, table(report));
    return 0;
  },
});

export const USAGE = cli.usage;

/** `cache-ttl report <session.jsonl> [--json] [--ttl <s>]` with `io`; returns the kit's exit code. Never throws. */
export const main = (argv: readonly string[], io: CliOutput): Promise<number> => cli.run(argv, io);
