/**
 * What the testkit writes into pi's config files is what pi 1.6 defines: every key and value of the sandbox
 * settings and of models.json (the loopback provider, the built-in providers' proxy override) is checked against
 * the JSON Schemas pi ships (`schemas/*.schema.json` of @earendil-works/pi-coding-agent). pi ignores a key it does
 * not know without a word, so a renamed setting or compat flag would otherwise pass every test and do nothing.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  CLI_DEFAULT_SETTINGS,
  loopbackProviderConfig,
  type ModelServer,
  WIRE_FORMATS,
  writeProviderConfig,
} from "../src/index.ts";

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  $defs?: Record<string, Schema>;
};

const piDir = dirname(dirname(fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent"))));
const schema = (name: string) => JSON.parse(readFileSync(join(piDir, "schemas", name), "utf8")) as Schema;

const typeOf = (value: unknown) =>
  Array.isArray(value)
    ? "array"
    : value === null
      ? "null"
      : typeof value === "number" && Number.isInteger(value)
        ? "integer"
        : typeof value;

/** Where `value` leaves `node` of `root`: unknown keys of a described object, values outside an enum or type. */
function problems(value: unknown, node: Schema, root: Schema, path = ""): string[] {
  if (node.$ref) return problems(value, root.$defs?.[node.$ref.replace("#/$defs/", "")] ?? {}, root, path);
  const alternatives = node.anyOf ?? node.oneOf;
  if (alternatives) {
    const each = alternatives.map((alternative) => problems(value, alternative, root, path));
    if (each.some((found) => found.length === 0)) return [];
    return [`${path}: ${JSON.stringify(value)} matches none of its ${alternatives.length} forms`];
  }
  if (node.enum && !node.enum.includes(value)) return [`${path}: ${JSON.stringify(value)} is not one of the enum`];
  if (node.const !== undefined && node.const !== value) return [`${path}: ${JSON.stringify(value)} is not the const`];
  const types = node.type === undefined ? [] : [node.type].flat();
  const actual = typeOf(value);
  if (types.length > 0 && !types.includes(actual) && !(actual === "integer" && types.includes("number"))) {
    return [`${path}: a ${actual}, the schema wants ${types.join(" | ")}`];
  }
  if (Array.isArray(value) && node.items) {
    return value.flatMap((item, i) => problems(item, node.items as Schema, root, `${path}[${i}]`));
  }
  if (actual !== "object" || (!node.properties && !node.patternProperties)) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, child]) => {
    const described =
      node.properties?.[key] ??
      Object.entries(node.patternProperties ?? {}).find(([pattern]) => new RegExp(pattern).test(key))?.[1];
    return described ? problems(child, described, root, `${path}/${key}`) : [`${path}/${key}: pi does not define it`];
  });
}

const scratch = mkdtempSync(join(tmpdir(), "pi-testkit-config-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the config files the testkit writes, against pi 1.6's own schemas", () => {
  it("the checker finds an unknown key and a value outside an enum", () => {
    const settings = schema("settings.schema.json");
    expect(problems({ retry: { enabled: true, provider: { maxRetriez: 1 } } }, settings, settings)).toEqual([
      "/retry/provider/maxRetriez: pi does not define it",
    ]);
    expect(problems({ cacheWarming: "always" }, settings, settings)).toEqual([
      '/cacheWarming: "always" matches none of its 3 forms',
    ]);
    const models = schema("models.schema.json");
    const provider = {
      ...loopbackProviderConfig({ baseUrl: "http://127.0.0.1:1/v1" }),
      compat: { supportsStorez: false },
    };
    expect(problems({ providers: { loopback: provider } }, models, models)).toEqual([
      "/providers/loopback/compat/supportsStorez: pi does not define it",
    ]);
  });

  it("the sandbox and CLI settings: every key is a pi setting, every value one pi takes", () => {
    const settings = schema("settings.schema.json");
    const written = { ...CLI_DEFAULT_SETTINGS, defaultProvider: "loopback", defaultModel: "loopback-model" };
    expect(problems(written, settings, settings)).toEqual([]);
  });

  it.each(WIRE_FORMATS)("models.json for %s", (format) => {
    const agentDir = join(scratch, format);
    const server = { format, baseUrl: "http://127.0.0.1:1/v1" } as Pick<ModelServer, "format" | "baseUrl">;
    writeProviderConfig(agentDir, server);
    const models = schema("models.schema.json");
    const written = JSON.parse(readFileSync(join(agentDir, "models.json"), "utf8")) as unknown;
    expect(problems(written, models, models)).toEqual([]);
  });
});
