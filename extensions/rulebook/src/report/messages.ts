import { formatSettingsIssue, type SettingsIssue } from "@pi-rails/agent-core/kit";
import type { RuleLoadResult, RuleWarning, SkippedRule } from "../rule.ts";

/**
 * The words for what discovery skipped or warned about, shared by a session (its one-time warning) and by
 * `rulebook doctor` / `/rulebook`, so the two can never describe the same file differently.
 */

/** One skipped file, as a session and doctor both say it: `skipped <path>: <reason>`. */
export function skippedMessage(skipped: SkippedRule): string {
  return `skipped ${skipped.path}: ${skipped.reason}`;
}

/** One warning with the file it concerns (once: a message that already starts with the path is left alone). */
export function warningMessage(warning: RuleWarning): string {
  return warning.path && !warning.message.startsWith(warning.path)
    ? `${warning.path}: ${warning.message}`
    : warning.message;
}

/** A settings issue (the kit's one wording) as one of rulebook's warnings. */
export function settingsWarning(issue: SettingsIssue): RuleWarning {
  return { path: issue.file, key: issue.key, kind: "settings", message: formatSettingsIssue(issue) };
}

/**
 * Whether a session warns about a skipped file. Files in a rule folder that the tool itself would not read
 * (a README in `.github/instructions`) are doctor-only, and so is a rule the user turned off by name.
 */
export function sessionWarnsAboutSkip(skipped: SkippedRule): boolean {
  return skipped.kind !== "not-a-rule" && skipped.kind !== "disabled";
}

/** Everything a session warns about after discovery, in order: warnings (not notes), then skipped files. */
export function sessionLoadWarnings(result: Pick<RuleLoadResult, "warnings" | "skipped">): string[] {
  return [
    // a glob read the obvious way (`.js` as `**/*.js`) is a note for doctor, not a warning every session; a settings
    // file pi cannot load is pi's to report (it says so itself)
    ...result.warnings.filter((w) => w.kind !== "glob-normalized" && w.kind !== "settings-file").map(warningMessage),
    ...result.skipped.filter(sessionWarnsAboutSkip).map(skippedMessage),
  ];
}
