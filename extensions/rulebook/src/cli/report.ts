import { type BucketName, bucketOf, bucketRules, type RuleBuckets } from "../buckets/buckets.ts";
import type { Rule, RuleLoadResult, RuleWarning } from "../rule.ts";
import type { RulebookSettings } from "../settings/schema.ts";

const BUCKET_LABEL: Record<BucketName, string> = {
  ttsr: "ttsr (stream condition)",
  alwaysApply: "always-apply (in the system prompt)",
  rulebook: "rulebook (listed; read on demand)",
  glob: "glob (attached when a matching file is touched)",
  neither: "neither (not delivered)",
};

/** A JSON-friendly view of one rule for `list --json` / `doctor --json`. */
export function describeRule(rule: Rule, bucket: BucketName) {
  return {
    name: rule.name,
    bucket,
    provider: rule.source.provider,
    priority: rule.source.priority,
    scope: rule.source.scope,
    path: rule.path,
    description: rule.description,
    globs: rule.globs,
    alwaysApply: rule.alwaysApply,
    condition: rule.condition,
    truncated: rule.truncated,
    chars: rule.content.length,
  };
}

/** Everything `rulebook doctor --json` prints. */
export function doctorReport(result: RuleLoadResult, settings: RulebookSettings, options: { ttsrActive: boolean }) {
  const buckets = bucketRules(result.rules, { ttsrActive: options.ttsrActive, globAttach: settings.globAttach });
  return {
    rules: result.rules.map((r) => describeRule(r, bucketOf(buckets, r))),
    notDelivered: buckets.neither.map(({ rule, reason }) => ({ name: rule.name, path: rule.path, reason })),
    shadowed: result.shadowed.map(({ rule, by }) => ({
      name: rule.name,
      path: rule.path,
      provider: rule.source.provider,
      by: { path: by.path, provider: by.source.provider, priority: by.source.priority },
      reason:
        by.source.priority > rule.source.priority
          ? `${by.source.provider} (priority ${by.source.priority}) outranks ${rule.source.provider} (priority ${rule.source.priority})`
          : by.source.provider === rule.source.provider
            ? `same provider, earlier in its order (${by.source.scope} before ${rule.source.scope}, sorted paths)`
            : `equal priority ${by.source.priority}: ${by.source.provider} comes before ${rule.source.provider}`,
    })),
    skipped: result.skipped,
    warnings: [...result.warnings, ...buckets.warnings.map((message): RuleWarning => ({ message }))],
    providers: result.providers,
    settings,
    stats: result.stats,
  };
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  "))
    .join("\n");
}

/** `rulebook list`: one line per effective rule. */
export function formatList(result: RuleLoadResult, buckets: RuleBuckets): string {
  if (!result.rules.length) return "No rules found.";
  const rows = [["NAME", "BUCKET", "PROVIDER", "SCOPE", "PATH"]];
  for (const rule of result.rules) {
    rows.push([rule.name, bucketOf(buckets, rule), rule.source.provider, rule.source.scope, rule.path]);
  }
  return table(rows);
}

/** `rulebook show <name>`: where it came from, how it is delivered, its content. */
export function formatShow(rule: Rule, bucket: BucketName, shadows: RuleLoadResult["shadowed"]): string {
  const lines = [
    `name:        ${rule.name}`,
    `bucket:      ${BUCKET_LABEL[bucket]}`,
    `provider:    ${rule.source.provider} (priority ${rule.source.priority}, ${rule.source.scope})`,
    `path:        ${rule.path}`,
  ];
  if (rule.description) lines.push(`description: ${rule.description}`);
  if (rule.globs) lines.push(`globs:       ${rule.globs.join(", ")}`);
  if (rule.alwaysApply !== undefined) lines.push(`alwaysApply: ${rule.alwaysApply}`);
  if (rule.condition) lines.push(`condition:   ${rule.condition.join(" | ")}`);
  if (rule.truncated) lines.push(`truncated:   ${rule.truncated.originalChars} -> ${rule.truncated.keptChars} chars`);
  for (const s of shadows.filter((s) => s.by === rule)) {
    lines.push(`shadows:     ${s.rule.path} (${s.rule.source.provider})`);
  }
  lines.push("", rule.content);
  return lines.join("\n");
}

/** `rulebook doctor`: providers, buckets, and every skipped, shadowed or warned-about file. */
export function formatDoctor(report: ReturnType<typeof doctorReport>): string {
  const out: string[] = [];
  out.push(`Providers (precedence order):`);
  for (const p of report.providers) {
    out.push(
      `  ${p.id.padEnd(9)} priority ${String(p.priority).padEnd(4)}${p.enabled ? `${p.found} rule(s)` : "disabled by settings"}`,
    );
  }
  out.push("", `Rules in effect (${report.rules.length}):`);
  for (const r of report.rules) out.push(`  ${r.name}  [${r.bucket}]  ${r.provider}  ${r.path}`);
  if (report.notDelivered.length) {
    out.push("", `Loaded but not delivered (${report.notDelivered.length}):`);
    for (const n of report.notDelivered) out.push(`  ${n.name}  ${n.path}\n    ${n.reason}`);
  }
  if (report.shadowed.length) {
    out.push("", `Shadowed (${report.shadowed.length}):`);
    for (const s of report.shadowed) out.push(`  ${s.name}  ${s.path}\n    shadowed by ${s.by.path}: ${s.reason}`);
  }
  if (report.skipped.length) {
    out.push("", `Skipped (${report.skipped.length}):`);
    for (const s of report.skipped) out.push(`  ${s.path} (${s.provider})\n    ${s.reason}`);
  }
  if (report.warnings.length) {
    out.push("", `Warnings (${report.warnings.length}):`);
    for (const w of report.warnings) out.push(`  ${w.path ? `${w.path}: ` : ""}${w.message}`);
  }
  out.push(
    "",
    `${report.stats.files} file(s) read in ${report.stats.ms.toFixed(1)} ms (${report.stats.cacheHits} from cache)`,
  );
  return out.join("\n");
}
