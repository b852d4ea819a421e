/**
 * The seed's fallback for frontmatter that YAML cannot parse: one `key: value` per line,
 * `^(\w+):\s*(.*)$`, every value a string. No arrays, no nesting, no hyphenated keys: that is the
 * point of reporting it, so users see which values became strings.
 */
export function parseFallbackLines(block: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (const line of block.split(/\r?\n/)) {
    const match = /^(\w+):\s*(.*)$/.exec(line);
    if (match) data[match[1]!] = match[2]!.trim();
  }
  return data;
}
