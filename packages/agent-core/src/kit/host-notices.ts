import { NoticeBoard, type NoticeContext, type NoticeLevel } from "../pi/notices.ts";

/** What a session notice needs of pi's extension context: where to show it, and which session it is about. */
export interface SessionNoticeContext extends NoticeContext {
  readonly sessionManager: { getSessionId(): string };
}

/** The keys already said, per extension, for the whole process (see `SessionNotices`). */
function processMemory(extension: string): Set<string> {
  const slot = Symbol.for(`@pi-rails/notices/${extension}`);
  const shared = globalThis as Record<symbol, Set<string> | undefined>;
  shared[slot] ??= new Set();
  return shared[slot];
}

function sessionIdOf(ctx: SessionNoticeContext): string {
  try {
    return ctx.sessionManager.getSessionId();
  } catch {
    return ""; // a replaced session's context may refuse; its notices then share one key space
  }
}

/**
 * The one rule for how long a notice is remembered: **once per session, across `/reload`**. A notice is about the
 * session it is said in (its journal, its rules, the pi it runs on), so a new session (`/new`, `/resume`, a fork)
 * says again what is true for it; a `/reload` loads the extension's modules again but is the same session, so it
 * repeats nothing. The memory is kept per process on `globalThis` (the only place a reload does not clear), keyed
 * by session id; it is a few short strings per session.
 */
export class SessionNotices {
  readonly #board: NoticeBoard;
  readonly #shown: Set<string>;

  /** `shown`: a private memory (tests); by default the process-wide one of `extension`. */
  constructor(extension: string, options: { write?: (line: string) => void; shown?: Set<string> } = {}) {
    this.#board = new NoticeBoard(extension, options.write ? { write: options.write } : {});
    this.#shown = options.shown ?? processMemory(extension);
  }

  /**
   * Marks `keys` as said in ctx's session and returns those not said before, in order: for one grouped notice
   * (`show`) that must still remember each thing it names.
   */
  remember(ctx: SessionNoticeContext, keys: Iterable<string>): string[] {
    const session = sessionIdOf(ctx);
    const fresh: string[] = [];
    for (const key of keys) {
      const id = `${session}\n${key}`;
      if (this.#shown.has(id)) continue;
      this.#shown.add(id);
      fresh.push(key);
    }
    return fresh;
  }

  /** Shows `message` now, with no memory (the display half of `once`). */
  show(ctx: NoticeContext, message: string, level: NoticeLevel = "warning"): void {
    this.#board.show(ctx, message, level);
  }

  /** Show `message` unless `key` was said in this session already; returns whether it was shown. */
  once(ctx: SessionNoticeContext, key: string, message: string, level: NoticeLevel = "warning"): boolean {
    if (this.remember(ctx, [key]).length === 0) return false;
    this.show(ctx, message, level);
    return true;
  }
}
