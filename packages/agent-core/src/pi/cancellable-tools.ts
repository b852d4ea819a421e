import { fileURLToPath } from "node:url";
import type { ExtensionAPI, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { expandTilde } from "../kit/agent-dir.ts";
import { ToolCallRegistry as Registry, type ToolCallRegistry } from "../tools/call-registry.ts";
import { describeCancelledCall } from "../tools/cancelled.ts";

/**
 * pi's factory of one built-in tool (`createBashToolDefinition`, `createReadToolDefinition`, ...). The extension
 * hands them over from its own import of `@earendil-works/pi-coding-agent`, which pi maps to the running pi: the
 * tools that run are that pi's own, not a second copy's.
 */
// biome-ignore lint/suspicious/noExplicitAny: each factory takes its own tool's options.
export type BuiltInToolFactory = (cwd: string, options?: any) => ToolDefinition<any, any>;

/**
 * Make pi's built-in tools cancellable one call at a time, on stock pi as on the patched one: each is registered
 * again under its own name (pi lets an extension replace a built-in) with the same definition, settings and
 * renderers, its execution going through a {@link ToolCallRegistry}. `defaultActive: false` leaves which tools the
 * model has exactly as pi decided (a replaced built-in stays active when it was). The reminder of a cancelled call
 * is a hidden custom message steered in: pi delivers it after the batch, with the other calls' results.
 */
export function registerCancellableBuiltInTools(
  pi: ExtensionAPI,
  factories: Record<string, BuiltInToolFactory>,
): ToolCallRegistry {
  const registry = new Registry({
    describe: describeCancelledCall,
    onReminder: ({ customType, reminderText, ...details }) =>
      pi.sendMessage({ customType, content: reminderText, display: false, details }, { deliverAs: "steer" }),
  });
  for (const [name, factory] of Object.entries(factories)) {
    // The prompt text and schema do not depend on the folder; each call builds the tool for its session's.
    const { renderCall: _call, renderResult: _result, ...definition } = factory(process.cwd());
    const tool: ToolDefinition = {
      ...definition,
      name,
      defaultActive: false,
      execute: (callId, args, signal, onUpdate, ctx) =>
        factory(ctx.cwd, builtInToolOptions(name, pi)).execute(callId, args, signal, onUpdate, ctx),
    };
    pi.registerTool(registry.wrap(tool));
  }
  return registry;
}

/** The options pi itself builds its built-in tools with, from the user's settings (`AgentSession._buildRuntime`). */
export function builtInToolOptions(name: string, pi: Pick<ExtensionAPI, "getSettings">): object | undefined {
  const settings = pi.getSettings();
  if (name === "bash")
    return { commandPrefix: settings.shellCommandPrefix, shellPath: shellPathOf(settings.shellPath) };
  if (name === "read") return { autoResizeImages: settings.images?.autoResize ?? true };
  return undefined;
}

/** `shellPath` as pi's settings manager hands it to its bash: `~` expanded, a `file://` URL made a path. */
function shellPathOf(shellPath: string | undefined): string | undefined {
  if (!shellPath) return shellPath;
  const expanded = expandTilde(shellPath);
  return expanded.startsWith("file://") ? fileURLToPath(expanded) : expanded;
}
