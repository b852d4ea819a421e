/** JSONL parsing shared by session files and `pi --mode json` output: strict, with line numbers. */

/** Parse JSONL text strictly: a malformed line is an error naming its line number. */
export function parseJsonLines<T = unknown>(text: string, source = "input"): T[] {
  const values: T[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      values.push(JSON.parse(line) as T);
    } catch (error) {
      throw new Error(`${source}:${i + 1}: not JSON (${String(error)}): ${line.slice(0, 200)}`);
    }
  });
  return values;
}
