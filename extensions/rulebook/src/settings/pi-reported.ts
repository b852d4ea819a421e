import type { SettingsIssue } from "@pi-rails/agent-core/kit";

/**
 * Whether pi itself says this: a settings file it cannot read or parse (a trailing comma) is reported by pi, which
 * then ignores the whole file, and so do we. A session adds nothing of its own (one mistake, one message); the CLIs,
 * where pi is not running, still say it.
 */
export function piReportsSettingsIssue(issue: Pick<SettingsIssue, "message">): boolean {
  // the kit's words for a file it could not read or parse (agent-core/kit settings.ts)
  return /^(settings file is not valid JSON|cannot read the file) \(/.test(issue.message);
}
