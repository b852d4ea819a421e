import { type BucketName, type BucketOptions, bucketOf, bucketRules } from "../buckets/buckets.ts";
import { sessionWarnsAboutSkip, skippedMessage, warningMessage } from "../report/messages.ts";
import type { Rule, RuleLoadResult, RuleWarning } from "../rule.ts";
import type { RulebookSettings } from "../settings/schema.ts";

export const BUCKET_LABEL: Record<BucketName, string> = {
  ttsr: "ttsr (stream condition; enforced by pi-ttsr)",
  alwaysApply: "always-apply (content in the system prompt)",
  rulebook: "rulebook (listed; read on demand)",
  glob: "glob (listed; attached when a matching file is read or edited)",
  neither: "neither (not delivered)",
};

/** The bucket as `list` shows it: `+attach` when the rule is also auto-attached to matching files. */
export function shortBucket(bucket: BucketName, attaches: boolean): string {
  return attaches && bucket !== "glob" ? `${bucket} +attach` : bucket;
}

/** The bucket as `show` and `doctor` say it, with auto-attach spelled out. */
export function bucketLabel(bucket: BucketName, attaches: boolean): string {
  return attaches && bucket !== "glob"
    ? `${BUCKET_LABEL[bucket]}; also auto-attached when a matching file is read or edited`
    : BUCKET_LABEL[bucket];
}

/** A JSON-friendly view of one rule for `list --json` / `doctor --json`. */
export function describeRule(rule: Rule, bucket: BucketName, autoAttach = false) {
  return {
    name: rule.name,
    bucket,
    autoAttach,
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

type DescribedRule = ReturnType<typeof describeRule>;

/** Everything `rulebook doctor --json` prints. */
export function doctorReport(
  result: RuleLoadResult,
  settings: RulebookSettings,
  options: Pick<BucketOptions, "ttsrActive" | "streamProblem">,
) {
  const buckets = bucketRules(result.rules, { ...options, globAttach: settings.globAttach });
  const attach = new Set(buckets.attach);
  return {
    rules: result.rules.map((r) => describeRule(r, bucketOf(buckets, r), attach.has(r))),
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
    // `message` is the line a session warns with (report/messages.ts); `sessionWarning` says whether it does
    skipped: result.skipped.map((s) => ({
      ...s,
      message: skippedMessage(s),
      sessionWarning: sessionWarnsAboutSkip(s),
    })),
    warnings: [...result.warnings, ...buckets.warnings.map((message): RuleWarning => ({ message }))],
    providers: result.providers,
    providerSummary: providerSummary(result),
    contextFiles: result.contextFiles ?? [],
    settings,
    stats: result.stats,
  };
}

/** Count by a key (`kind`, or "other" when unset). */
function countBy<T>(items: readonly T[], key: (item: T) => string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const k = key(item) ?? "other";
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/**
 * Per provider: files seen, rules loaded, in effect, shadowed, skipped (counted by why), and
 * warnings counted by kind. The one place to see what each tool's files became.
 */
export function providerSummary(result: RuleLoadResult) {
  return result.providers.map((p) => {
    const skipped = result.skipped.filter((s) => s.provider === p.id);
    const warnings = result.warnings.filter((w) => w.provider === p.id);
    return {
      id: p.id,
      enabled: p.enabled,
      filesSeen: p.seen ?? p.found + skipped.length,
      loaded: p.found,
      inEffect: result.rules.filter((r) => r.source.provider === p.id).length,
      shadowed: result.shadowed.filter((s) => s.rule.source.provider === p.id).length,
      skipped: { count: skipped.length, byKind: countBy(skipped, (s) => s.kind) },
      warnings: { count: warnings.length, byKind: countBy(warnings, (w) => w.kind) },
    };
  });
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  "))
    .join("\n");
}

/** `rulebook list`: one line per effective rule. */
export function formatList(rules: readonly DescribedRule[]): string {
  if (!rules.length) return "No rules found.";
  const rows = rules.map((r) => [r.name, shortBucket(r.bucket, r.autoAttach), r.provider, r.scope, r.path]);
  return table([["NAME", "BUCKET", "PROVIDER", "SCOPE", "PATH"], ...rows]);
}

/** `rulebook show <name>`: where it came from, how it is delivered, its content. */
export function formatShow(
  rule: Rule,
  bucket: BucketName,
  shadows: RuleLoadResult["shadowed"],
  autoAttach = false,
  notDelivered?: string,
): string {
  const lines = [
    `name:        ${rule.name}`,
    `bucket:      ${bucketLabel(bucket, autoAttach)}`,
    ...(notDelivered ? [`why:         ${notDelivered}`] : []),
    `provider:    ${rule.source.provider} (priority ${rule.source.priority}, ${rule.source.scope})`,
    `path:        ${rule.path}`,
  ];
  if (rule.description) lines.push(`description: ${rule.description}`);
  if (rule.globs) lines.push(`globs:       ${rule.globs.join(", ")}`);
  if (rule.alwaysApply !== undefined) lines.push(`alwaysApply: ${rule.alwaysApply}`);
  if (rule.condition) lines.push(`condition:   ${rule.condition.join(" | ")}`);
  if (rule.truncated) lines.push(`truncated:   ${rule.truncated.originalChars} -> ${rule.truncated.keptChars} chars`);
  for (const s of shadows.filter((s) => s.by === rule))
    lines.push(`shadows:     ${s.rule.path} (${s.rule.source.provider})`);
  lines.push("", rule.content);
  return lines.join("\n");
}

/** `rulebook doctor`: providers, buckets, and every skipped, shadowed or warned-about file. */
export function formatDoctor(report: ReturnType<typeof doctorReport> & { streamConditionsCheckedBy?: string }): string {
  const out = ["Providers (precedence order):"];
  report.providers.forEach((p, i) => {
    const sum = report.providerSummary[i]!;
    const warnings = Object.entries(sum.warnings.byKind)
      .map(([k, n]) => `${n} ${k}`)
      .join(", ");
    out.push(
      `  ${p.id.padEnd(9)} priority ${String(p.priority).padEnd(4)}${
        p.enabled
          ? `${sum.filesSeen} file(s) seen, ${sum.loaded} loaded, ${sum.inEffect} in effect, ${sum.shadowed} shadowed, ${sum.skipped.count} skipped, ${sum.warnings.count} warning(s)${warnings ? ` (${warnings})` : ""}`
          : "disabled by settings"
      }`,
    );
  });
  out.push("", `Rules in effect (${report.rules.length}):`);
  for (const r of report.rules)
    out.push(`  ${r.name}  [${bucketLabel(r.bucket, r.autoAttach)}]  ${r.provider}  ${r.path}`);
  const section = <T>(title: string, items: readonly T[], line: (item: T) => string): void => {
    if (items.length) out.push("", `${title} (${items.length}):`, ...items.map(line));
  };
  section("Loaded but not delivered", report.notDelivered, (n) => `  ${n.name}  ${n.path}\n    ${n.reason}`);
  section("Shadowed", report.shadowed, (s) => `  ${s.name}  ${s.path}\n    shadowed by ${s.by.path}: ${s.reason}`);
  section("Skipped", report.skipped, (s) => `  [${s.provider}] ${s.message}`);
  if (report.contextFiles.length) {
    out.push("", "Loaded by pi itself (context files; rulebook leaves them to pi):");
    for (const f of report.contextFiles) {
      const what = f.loadedByPi ? "loaded by pi" : `skipped by pi: ${f.note ?? ""}`;
      out.push(`  ${f.path}\n    ${what}${f.rule ? `; loaded by rulebook as rule "${f.rule}"` : ""}`);
    }
  }
  section("Warnings", report.warnings, (w) => `  ${warningMessage(w)}`);
  out.push(
    "",
    `${report.stats.files} file(s) read in ${report.stats.ms.toFixed(1)} ms (${report.stats.cacheHits} from cache)`,
  );
  if (report.streamConditionsCheckedBy) out.push(`Stream conditions checked by ${report.streamConditionsCheckedBy}`);
  return out.join("\n");
}
