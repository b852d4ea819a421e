import {
  type SessionEntryWriter,
  type SessionNoticeContext,
  SessionNotices,
  stripControl,
  writeSessionEntry,
} from "@pi-rails/agent-core/kit";
import { WARNINGS_ENTRY } from "./entries.ts";

/** At most this many warnings are listed in one notice; the rest are counted, for `/rulebook` to show. */
const LISTED = 8;

/**
 * rulebook's warnings to the user, under the kit's one rule for notices (`SessionNotices`): each is said once per
 * session, and a `/reload` (the same session) repeats none; a new session says again what is true for it. The new
 * warnings of one moment are said together (a notification with UI, stderr without) and written to the session as
 * a `rulebook:warnings` entry, so its file tells what it said.
 */
export class SessionWarnings {
  readonly #notices = new SessionNotices("rulebook");

  constructor(private readonly pi: SessionEntryWriter) {}

  /** Says those of `messages` not said yet in `ctx`'s session, in one notice. */
  say(ctx: SessionNoticeContext, messages: readonly string[]): void {
    // each is remembered on its own, and the new ones are shown together
    const fresh = this.#notices.remember(ctx, messages);
    if (!fresh.length) return;
    const lines = [`${fresh.length} warning(s)`, ...fresh.slice(0, LISTED).map((m) => `- ${m}`)];
    if (fresh.length > LISTED)
      lines.push(`- ... and ${fresh.length - LISTED} more: run /rulebook or \`rulebook doctor\``);
    // file names can carry ESC sequences: never pass them to the terminal
    this.#notices.show(ctx, stripControl(lines.join("\n")).replace(/\r/g, ""));
    writeSessionEntry(this.pi, WARNINGS_ENTRY, { messages: fresh });
  }
}
