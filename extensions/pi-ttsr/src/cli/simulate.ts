import { type RuleMatch, TtsrManager } from "../manager/ttsr-manager.ts";
import type { StreamSource } from "../rules/types.ts";
import type { CliRules } from "./context.ts";

export interface SimulatedHit {
  rule: string;
  /** The tool whose arguments carried the text (tool source only). */
  tool?: string;
  file: string;
  /** What a session would do: interrupt the stream, or deliver a reminder later. */
  delivery: "interrupt" | "reminder";
  /** Offset just past the match in `text`. */
  end: number;
}

export interface SimulateInput {
  text: string;
  source: StreamSource;
  tool?: string;
  path?: string;
}

/** Deltas like a model's (a few characters each), so the CLI exercises the same incremental path as a session. */
const DELTA = 16;

/**
 * Streams a text through a fresh manager as a session would (tool sources as streamed JSON arguments with the
 * content first, so path gates resolve late like they can in a session) and reports every rule that fires.
 */
export function simulate(rules: CliRules, input: SimulateInput, manager?: TtsrManager): SimulatedHit[] {
  const m =
    manager ?? new TtsrManager(rules.registry, { settings: { ...rules.settings, enabled: true }, cwd: rules.cwd });
  m.resetStreams();
  const hits = new Map<string, SimulatedHit>();
  const record = (matches: RuleMatch[], delivery: SimulatedHit["delivery"]) => {
    for (const match of matches) {
      if (hits.has(match.rule.name)) continue;
      const hit: SimulatedHit = { rule: match.rule.name, file: match.rule.path, delivery, end: match.end };
      if (match.toolName) hit.tool = match.toolName;
      hits.set(match.rule.name, hit);
    }
  };
  let raw = input.text;
  let toolCall: { id: string; name: string } | undefined;
  if (input.source === "tool") {
    const name = input.tool ?? "write";
    // pi's argument shapes: an edit's new text is `edits[].newText`; any other tool gets `content`.
    const args: Record<string, unknown> =
      name === "edit" ? { edits: [{ oldText: "", newText: input.text }] } : { content: input.text };
    if (input.path) args["path"] = input.path;
    raw = JSON.stringify(args);
    toolCall = { id: "cli", name };
  }
  for (let i = 0; i < raw.length; i += DELTA) {
    const decision = m.checkDelta({
      source: input.source,
      chunk: raw.slice(i, i + DELTA),
      ...(toolCall ? { toolCall } : {}),
    });
    record(decision.deferred, "reminder");
    record(decision.interrupt, "interrupt");
  }
  record(m.finishStreams().deferred, "reminder");
  m.onMessageEnd("stop");
  m.resetStreams();
  return [...hits.values()];
}

/**
 * The text as the content of each of these tools in turn (a file is both written and edited in a session);
 * one hit per rule, from the first tool that fires it.
 */
export function simulateTools(
  rules: CliRules,
  input: SimulateInput,
  tools: readonly string[],
  manager?: TtsrManager,
): SimulatedHit[] {
  const hits = new Map<string, SimulatedHit>();
  for (const tool of tools) {
    for (const hit of simulate(rules, { ...input, tool }, manager)) if (!hits.has(hit.rule)) hits.set(hit.rule, hit);
  }
  return [...hits.values()];
}

/** The tools a file's content is simulated as: `write`, plus `edit` when a rule watches edits by name. */
export function fileTools(rules: CliRules): string[] {
  const edits = rules.registry.rules.some((r) => r.rule.scope.tools.some((t) => t.name === "edit"));
  return edits ? ["write", "edit"] : ["write"];
}
