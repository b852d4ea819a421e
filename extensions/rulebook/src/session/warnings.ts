import {
  NoticeBoard,
  type NoticeContext,
  readSessionEntries,
  type SessionEntryWriter,
  writeSessionEntry,
} from "@pi-rails/agent-core/kit";
import { stripControl } from "../prompt/escape.ts";
import { WARNINGS_ENTRY } from "./entries.ts";

/** At most this many warnings are listed in one notice; the rest are counted, for `/rulebook` to show. */
const LISTED = 8;

/** Takes a notice without showing it: the board only remembers the warning, which is said with the others. */
const UNSHOWN: NoticeContext = { hasUI: true, ui: { notify: () => {} } };

/**
 * rulebook's warnings to the user, each said once per session, the rule every pi-rails extension follows: the kit's
 * NoticeBoard remembers what was said until the next session starts. The new warnings of one moment are said
 * together (a notification with UI, stderr without) and written to the session as a `rulebook:warnings` entry.
 */
export class SessionWarnings {
  readonly #board = new NoticeBoard("rulebook");

  constructor(private readonly pi: SessionEntryWriter) {}

  /**
   * A session starts: nothing said yet. A `/reload` is the same session in a new extension instance: what its
   * warnings entries say was said (on any branch: they were said to the user, not the model) stays said.
   */
  start(reason: string, entries: readonly unknown[]): void {
    this.#board.reset();
    if (reason !== "reload") return;
    for (const { messages } of readSessionEntries(entries, WARNINGS_ENTRY)) messages.forEach(this.#remember);
  }

  /** Says those of `messages` not said yet this session, in one notice. */
  say(ctx: NoticeContext, messages: readonly string[]): void {
    const fresh = messages.filter(this.#remember);
    if (!fresh.length) return;
    const lines = [`${fresh.length} warning(s)`, ...fresh.slice(0, LISTED).map((m) => `- ${m}`)];
    if (fresh.length > LISTED)
      lines.push(`- ... and ${fresh.length - LISTED} more: run /rulebook or \`rulebook doctor\``);
    // file names can carry ESC sequences: never pass them to the terminal. No warning starts with a newline: the
    // notice's key is never a warning's.
    this.#board.once(ctx, `\n${fresh.join("\n")}`, stripControl(lines.join("\n")).replace(/\r/g, ""));
    writeSessionEntry(this.pi, WARNINGS_ENTRY, { messages: fresh });
  }

  /** Marks `message` said; whether it was new. */
  readonly #remember = (message: string): boolean => this.#board.once(UNSHOWN, message, message);
}
