/**
 * Which rule names the settings turn off, and the reason each is reported with. Two keys name rules: rulebook's own
 * `rulebook.disabledRules` and the reference's `ttsr.disabledRules` (oh-my-pi drops those names from every bucket
 * before TTSR registration, so a user arriving from it expects both extensions and both CLIs to honour it).
 */
export function disabledRuleReasons(
  rulebookNames: readonly string[],
  ttsrNames: readonly string[] = [],
): Map<string, string> {
  const keys = new Map<string, string[]>();
  const add = (name: string, key: string) => {
    const list = keys.get(name) ?? [];
    if (!list.includes(key)) list.push(key);
    keys.set(name, list);
  };
  for (const name of rulebookNames) add(name, "rulebook.disabledRules");
  for (const name of ttsrNames) add(name, "ttsr.disabledRules");
  const out = new Map<string, string>();
  for (const [name, list] of keys) out.set(name, `disabled by ${list.join(" and ")} ("${name}")`);
  return out;
}
