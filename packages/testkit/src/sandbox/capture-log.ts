/**
 * Runs `fn` with console.log captured (and not printed): for a test of a script that narrates what it does (the
 * `pnpm demo` stages), which asserts both on what the run returned and on what it said. console.log is restored
 * whether `fn` resolves or throws.
 */
export async function captureLog<T>(fn: () => Promise<T>): Promise<{ result: T; text: string }> {
  const lines: string[] = [];
  const original = console.log;
  console.log = (...args: unknown[]) => {
    lines.push(args.join(" "));
  };
  try {
    const result = await fn();
    return { result, text: lines.join("\n") };
  } finally {
    console.log = original;
  }
}
