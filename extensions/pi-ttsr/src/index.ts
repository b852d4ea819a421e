export * from "./matcher/compile.ts";
export * from "./matcher/json-strings.ts";
export * from "./matcher/stream-matcher.ts";
