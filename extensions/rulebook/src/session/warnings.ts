import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { NoticeBoard, type NoticeContext, writeSessionEntry } from "@pi-rails/agent-core/kit";
import { stripControl } from "../prompt/escape.ts";
import { WARNINGS_ENTRY } from "./entries.ts";

/** At most this many warnings are listed in one notice; the rest are counted, for `/rulebook` to show. */
const LISTED = 8;

/** Takes a notice without showing it: the board only remembers the warning, which is said with the others. */
const UNSHOWN: NoticeContext = { hasUI: true, ui: { notify: () => {} } };

/**
 * rulebook's warnings to the user, each said once per session, the rule every pi-rails extension follows: the kit's
 * NoticeBoard remembers what was said until `forget` at a new session's start. A `/reload` is the same session in a
 * new extension instance, so it first `recall`s what the session's `rulebook:warnings` entries say was said. The new
 * warnings of one moment are said together (a notification with UI, stderr without) and written to the session.
 */
export class SessionWarnings {
  readonly #board = new NoticeBoard("rulebook");

  constructor(private readonly pi: Pick<ExtensionAPI, "appendEntry">) {}

  /** A new session: nothing said yet. */
  forget(): void {
    this.#board.reset();
  }

  /** Remembers `messages` as said (what a reloaded session said before). */
  recall(messages: Iterable<string>): void {
    for (const message of messages) this.#board.once(UNSHOWN, message, message);
  }

  /** Says those of `messages` not said yet this session, in one notice. */
  say(ctx: NoticeContext, messages: readonly string[]): void {
    const fresh = messages.filter((message) => this.#board.once(UNSHOWN, message, message));
    if (!fresh.length) return;
    const lines = [`${fresh.length} warning(s)`, ...fresh.slice(0, LISTED).map((m) => `- ${m}`)];
    if (fresh.length > LISTED)
      lines.push(`- ... and ${fresh.length - LISTED} more: run /rulebook or \`rulebook doctor\``);
    // file names can carry ESC sequences: never pass them to the terminal. The key is a line no warning can be.
    this.#board.once(ctx, `\n${fresh.join("\n")}`, stripControl(lines.join("\n")).replace(/\r/g, ""));
    writeSessionEntry(this.pi, WARNINGS_ENTRY, { messages: fresh });
  }
}
