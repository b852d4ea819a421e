import { type AssistantMessage, type Context, getCurrentSystemPrompt } from "@earendil-works/pi-ai";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { fauxAssistantMessage } from "@pi-rails/testkit";

/**
 * A scripted model turn that records what the model was sent: pi 1.6 sends the system prompt as system messages in
 * `messages`; `systemPrompt` is the prompt they add up to (pi-ai's `getCurrentSystemPrompt`).
 */
export function recorder() {
  const contexts: Context[] = [];
  const reply =
    (content: Parameters<typeof fauxAssistantMessage>[0]) =>
    (context: Context): AssistantMessage => {
      const systemPrompt = getCurrentSystemPrompt(context.messages);
      contexts.push({ systemPrompt, messages: structuredClone(context.messages) } as Context);
      return fauxAssistantMessage(content);
    };
  return { contexts, reply };
}

/** Everything the model saw in one request, as text (the system prompt, and the messages, system ones included). */
export function sentText(context: Context | undefined): string {
  if (!context) return "";
  return `${context.systemPrompt ?? ""}\n${JSON.stringify(context.messages)}`;
}

export function ruleFile(front: Record<string, unknown>, body: string): string {
  const yaml = Object.entries(front)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join("\n");
  return `---\n${yaml}\n---\n${body}\n`;
}

/** An extension that records what pi-ttsr says on pi.events. */
export function eventProbe() {
  const triggered: unknown[] = [];
  const status: unknown[] = [];
  const factory = (pi: ExtensionAPI) => {
    pi.events.on("pi-rails:ttsr:triggered", (data) => triggered.push(data));
    pi.events.on("pi-rails:ttsr:status", (data) => status.push(data));
  };
  return { triggered, status, factory };
}
