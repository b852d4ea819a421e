/** The part of pi's extension context a notice needs (structural, so this package does not depend on pi). */
export interface NoticeContext {
  readonly hasUI: boolean;
  readonly ui: { notify(message: string, type?: "info" | "warning" | "error"): void };
}

export type NoticeLevel = "info" | "warning" | "error";

/**
 * Tells the user something once per session: in the TUI as a notification, in print / JSON mode (where pi's
 * notify is silent) on stderr, so a warning about a skipped rule or a missing patch is never lost.
 */
export class NoticeBoard {
  readonly #prefix: string;
  readonly #shown = new Set<string>();
  readonly #write: (line: string) => void;

  constructor(prefix: string, options: { write?: (line: string) => void } = {}) {
    this.#prefix = prefix;
    this.#write = options.write ?? ((line) => process.stderr.write(`${line}\n`));
  }

  /** Show `message` unless the same key was shown since the last reset; returns whether it was shown. */
  once(ctx: NoticeContext | undefined, key: string, message: string, level: NoticeLevel = "warning"): boolean {
    if (this.#shown.has(key)) return false;
    this.#shown.add(key);
    this.show(ctx, message, level);
    return true;
  }

  /**
   * Marks `keys` as shown and returns those that were not shown before, in order: for a caller that says several
   * things in one grouped notice (see `show`) but must remember each one on its own, or that seeds the board
   * with what an earlier instance of the same session already said (a /reload).
   */
  remember(keys: Iterable<string>): string[] {
    const fresh: string[] = [];
    for (const key of keys) {
      if (this.#shown.has(key)) continue;
      this.#shown.add(key);
      fresh.push(key);
    }
    return fresh;
  }

  /** Shows `message` now, with no memory: the display half of `once` (interactive notice, else stderr). */
  show(ctx: NoticeContext | undefined, message: string, level: NoticeLevel = "warning"): void {
    const text = `${this.#prefix}: ${message}`;
    if (ctx?.hasUI) ctx.ui.notify(text, level);
    else this.#write(level === "info" ? text : `${level}: ${text}`);
  }

  /** Forget what was shown (a new session starts). */
  reset(): void {
    this.#shown.clear();
  }
}
