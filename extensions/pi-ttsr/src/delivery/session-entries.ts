import { defineSessionEntry, readSessionEntries, type SessionEntryType } from "@pi-rails/agent-core/kit";

/**
 * A pi-ttsr session entry type, named `ttsr:<kind>` as pi-rails entries are (`<extension>:<kind>`), with the
 * spelling pi-ttsr wrote before (`ttsr-<kind>`), so a session written then keeps its state when resumed.
 */
export interface TtsrEntryType<T> extends SessionEntryType<T> {
  readonly formerly: string;
}

export function defineTtsrEntry<T>(kind: string, read: (data: unknown) => T | undefined): TtsrEntryType<T> {
  return { ...defineSessionEntry(`ttsr:${kind}`, read), formerly: `ttsr-${kind}` };
}

/** Every usable entry of `type` in a session branch, oldest first, in either spelling. */
export function readTtsrEntries<T>(branch: readonly unknown[], type: TtsrEntryType<T>): T[] {
  const former = defineSessionEntry(type.formerly, type.read);
  return branch.flatMap((entry) => [...readSessionEntries([entry], type), ...readSessionEntries([entry], former)]);
}
