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
    const text = `${this.#prefix}: ${message}`;
    if (ctx?.hasUI) ctx.ui.notify(text, level);
    else this.#write(level === "info" ? text : `${level}: ${text}`);
    return true;
  }

  /** Forget what was shown (a new session starts). */
  reset(): void {
    this.#shown.clear();
  }
}
