import type { JsonValue } from "@earendil-works/pi-ai";
import type { ExtensionAPI, ExtensionFactory, ExtensionToolContext } from "@earendil-works/pi-coding-agent";

/** A tool a test registers in a real session: string parameters, text out (plus structured output when given). */
export interface InlineToolSpec<P extends string> {
  name: string;
  description?: string;
  /** The tool's parameters, each a required string (what tests pass: paths, texts). */
  params: readonly P[];
  /** JSON Schema of `structuredContent`, when the tool returns one. */
  outputSchema?: Record<string, unknown>;
  execute(
    params: Record<P, string>,
    ctx: ExtensionToolContext,
  ): Promise<{ text: string; structuredContent?: JsonValue }>;
}

/**
 * An extension that registers one tool, for tests that need a tool of their own next to the extension under test
 * (a tool whose output a rule reads, a tool that calls another through `ctx.executeTool`): the registration's
 * boilerplate (label, schema, result shape) written once.
 */
export function inlineTool<P extends string>(spec: InlineToolSpec<P>): ExtensionFactory {
  return (pi: ExtensionAPI) => {
    pi.registerTool({
      name: spec.name,
      label: spec.name,
      description: spec.description ?? `The test's ${spec.name} tool`,
      parameters: {
        type: "object",
        properties: Object.fromEntries(spec.params.map((param) => [param, { type: "string" }])),
        required: [...spec.params],
      },
      ...(spec.outputSchema ? { outputSchema: spec.outputSchema } : {}),
      async execute(_id, params: Record<P, string>, _signal, _onUpdate, ctx) {
        const { text, structuredContent } = await spec.execute(params, ctx);
        return {
          content: [{ type: "text", text }],
          details: {},
          ...(structuredContent === undefined ? {} : { structuredContent }),
        };
      },
    });
  };
}
