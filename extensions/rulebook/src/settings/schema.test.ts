import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "./defaults.ts";
import { parseRulebookSettings, RulebookSettingsSchema } from "./schema.ts";

describe("parseRulebookSettings", () => {
  it("the zod-free defaults are the schema's defaults", () => {
    expect(DEFAULT_SETTINGS).toEqual(RulebookSettingsSchema.parse({}));
  });

  it("defaults when absent", () => {
    expect(parseRulebookSettings(undefined, "s.json")).toEqual({ settings: DEFAULT_SETTINGS, issues: [] });
  });

  it("keeps good keys, reports bad and unknown ones by file and key, never throws", () => {
    const { settings, issues } = parseRulebookSettings(
      { globAttach: false, maxRuleChars: -5, disabledProviders: ["cursor", "nope"], colour: "red" },
      "/p/.pi/settings.json",
    );
    expect(settings).toEqual({ ...DEFAULT_SETTINGS, globAttach: false, disabledProviders: ["cursor"] });
    expect(issues.map((e) => [e.key, e.message])).toEqual([
      [
        "rulebook.maxRuleChars",
        expect.stringMatching(/^\/p\/\.pi\/settings\.json: rulebook\.maxRuleChars: .*; ignored$/),
      ],
      ["rulebook.disabledProviders[1]", expect.stringMatching(/rulebook\.disabledProviders\[1\]: .*\(got "nope"\)/)],
      ["rulebook.colour", expect.stringMatching(/rulebook\.colour: unknown key \(known: disabledRules/)],
    ]);
  });

  it("a non-object value is one error", () => {
    expect(parseRulebookSettings("yes", "s.json").issues).toEqual([
      expect.objectContaining({ message: 's.json: rulebook: must be an object, got "yes"; ignored' }),
    ]);
  });
});
