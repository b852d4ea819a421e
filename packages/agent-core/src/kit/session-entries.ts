/**
 * One reader and one writer for the custom entries extensions keep in pi's session (`pi.appendEntry`). An entry
 * may have been written by another version of the extension, or damaged on disk, so every read goes through the
 * entry type's own check: a usable entry comes back typed, anything else is skipped, never thrown, because a
 * damaged entry must not stop the session.
 */

/** A custom entry type: its `customType` in the session, and the check that turns stored data into `T`. */
export interface SessionEntryType<T> {
  /** What is written: pi-rails spells it `<extension>:<kind>`. */
  readonly customType: string;
  /** Spellings earlier versions wrote, still read: a session written then keeps its state when resumed. */
  readonly formerly: readonly string[];
  /** The entry's data as `T` when it is usable, else undefined. */
  readonly read: (data: unknown) => T | undefined;
}

/** Declares an entry type once, next to the data it holds; readers and writers then share it. */
export function defineSessionEntry<T>(
  customType: string,
  read: (data: unknown) => T | undefined,
  options: { formerly?: readonly string[] } = {},
): SessionEntryType<T> {
  return { customType, formerly: options.formerly ?? [], read };
}

/** What a session entry looks like from outside: pi's `SessionEntry`, or a parsed line of a session file. */
interface EntryShape {
  type?: unknown;
  customType?: unknown;
  data?: unknown;
}

function dataOf<T>(entry: unknown, type: SessionEntryType<T>): T | undefined {
  const shape = entry as EntryShape | null | undefined;
  if (shape?.type !== "custom") return undefined;
  const spelled = shape.customType;
  if (spelled !== type.customType && !type.formerly.includes(spelled as string)) return undefined;
  return type.read(shape.data);
}

/** Every usable entry of `type`, oldest first. */
export function readSessionEntries<T>(entries: Iterable<unknown>, type: SessionEntryType<T>): T[] {
  return Array.from(entries, (entry) => dataOf(entry, type)).filter((data): data is T => data !== undefined);
}

/** The newest usable entry of `type` (a snapshot that later entries replace), or undefined. */
export function latestSessionEntry<T>(entries: readonly unknown[], type: SessionEntryType<T>): T | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const data = dataOf(entries[i], type);
    if (data !== undefined) return data;
  }
  return undefined;
}

/** What writing needs of pi: `ExtensionAPI.appendEntry`. */
export interface SessionEntryWriter {
  appendEntry(customType: string, data?: unknown): void;
}

/** Appends one entry of `type`; the type parameter keeps what is written and what is read the same shape. */
export function writeSessionEntry<T>(pi: SessionEntryWriter, type: SessionEntryType<T>, data: T): void {
  pi.appendEntry(type.customType, data);
}
