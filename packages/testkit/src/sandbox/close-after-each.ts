/** What a test opens and must close: a loopback server (`close`), a CLI home, a session or a stock pi (`dispose`). */
export type Closable = { close(): unknown } | { dispose(): unknown };

/**
 * `keep(thing)` for a test file: whatever a test keeps is closed after that test, the last opened first, also when
 * the test failed; one that fails to close does not keep the others open (the first error is raised after all ran).
 * Takes vitest's `afterEach`, so the testkit itself does not import vitest.
 */
export function closeAfterEach(afterEach: (hook: () => Promise<void>) => void): <T extends Closable>(thing: T) => T {
  const open: Closable[] = [];
  afterEach(async () => {
    const errors: unknown[] = [];
    for (const thing of open.splice(0).reverse()) {
      try {
        await ("close" in thing ? thing.close() : thing.dispose());
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
  });
  return (thing) => {
    open.push(thing);
    return thing;
  };
}
