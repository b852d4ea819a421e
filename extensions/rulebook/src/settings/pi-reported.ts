import type { SettingsIssue } from "@pi-rails/agent-core/kit";

/**
 * Whether pi itself says this: a settings file it cannot read or parse (a trailing comma) is reported by pi, which
 * then ignores the whole file, and so do we (the kit marks such an issue `wholeFile`). A session adds nothing of its
 * own (one mistake, one message); the CLIs, where pi is not running, still say it.
 */
export function piReportsSettingsIssue(issue: Pick<SettingsIssue, "wholeFile">): boolean {
  return issue.wholeFile === true;
}
