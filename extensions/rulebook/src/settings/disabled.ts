/**
 * Which rule names the settings turn off, and the reason each is reported with. Two keys name rules: rulebook's own
 * `rulebook.disabledRules` and the reference's `ttsr.disabledRules` (oh-my-pi drops those names from every bucket
 * before TTSR registration, so a user arriving from it expects both extensions and both CLIs to honour it).
 */
export function disabledRuleReasons(
  rulebookNames: readonly string[],
  ttsrNames: readonly string[] = [],
): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of new Set([...rulebookNames, ...ttsrNames])) {
    const keys = [];
    if (rulebookNames.includes(name)) keys.push("rulebook.disabledRules");
    if (ttsrNames.includes(name)) keys.push("ttsr.disabledRules");
    out.set(name, `disabled by ${keys.join(" and ")} ("${name}")`);
  }
  return out;
}
