import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "@pi-rails/agent-core/kit";

/**
 * "Pruning is off: the TTL of <model> is not known" is information, not a mistake: said on every `pi -p`, `/new`
 * and `/reload` it becomes noise. So it is said once per agent dir and model, and again only when something changes:
 * the reason (another setting, another API) or the model's TTL became known in between (then it is forgotten, and
 * said again should it become unknown again). What was said is kept in `<agent dir>/cache-ttl-view/said.json`,
 * beside the user's settings: the same user, the same pi. Deleting the file brings every notice back once.
 */

/** `{ "<provider>/<model id>": "<the reason said>" }`: what was said, per model. */
export type SaidRecord = Readonly<Record<string, string>>;

/** The file that keeps what was said, in pi's agent dir. */
export function saidFile(agentDir: string): string {
  return join(agentDir, "cache-ttl-view", "said.json");
}

/** The key of a model in the record (`provider/id`; no model: `(no model)`). */
export function modelKey(model: { provider?: string; id?: string } | undefined): string {
  return model ? `${model.provider ?? "?"}/${model.id ?? "?"}` : "(no model)";
}

/**
 * What to do about the "pruning is off" notice for `model`, given what was said (`record`) and today's reason
 * (`undefined`: the TTL is known, nothing to say). Returns whether to say it and the record to keep (`undefined`:
 * unchanged, nothing to write).
 */
export function ttlNotice(
  record: SaidRecord,
  model: string,
  reason: string | undefined,
): { say: boolean; next?: SaidRecord } {
  const said = Object.hasOwn(record, model) ? record[model] : undefined;
  if (reason === undefined) {
    if (said === undefined) return { say: false };
    const next = { ...record };
    delete (next as Record<string, string>)[model];
    return { say: false, next };
  }
  if (said === reason) return { say: false };
  return { say: true, next: { ...record, [model]: reason } };
}

/** The record in `file`; a missing, unreadable or damaged file is an empty record (the notice is said again). */
export function readSaid(file: string): SaidRecord {
  try {
    const value: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"));
  } catch {
    return {};
  }
}

/**
 * The adapter the extension uses: reads the file when asked (another pi process may have written it since), writes
 * it atomically when the record changes. A file that cannot be written costs only a repeat: the notice is still
 * said at most once per session (the extension's notice board).
 */
export function ttlNoticeDue(file: string, model: string, reason: string | undefined): boolean {
  const { say, next } = ttlNotice(readSaid(file), model, reason);
  if (next) {
    try {
      writeFileAtomicSync(file, `${JSON.stringify(next, null, 2)}\n`);
    } catch {
      // Read-only agent dir: said once per session instead.
    }
  }
  return say;
}
