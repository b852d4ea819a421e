import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type CliHome, readSessionFile } from "@pi-rails/testkit";
import { expect } from "vitest";

// What the scenarios that run the extensions in the real pi CLI (either pi) share: where the extensions are, pi-steer
// against a session, a gate to hold the model's answer, and readers of what the model was sent and what the
// session file holds.

export const ROOT = join(import.meta.dirname, "..", "..", "..");
export const TTSR = join(ROOT, "extensions", "pi-ttsr");
export const STEERING = join(ROOT, "extensions", "steering-bridge");
export const RULEBOOK = join(ROOT, "extensions", "rulebook");
const PI_STEER = join(STEERING, "bin", "pi-steer.mjs");

/** Wall time is not what these tests measure: a loaded machine (2 cores, many runs) may take this long. */
export const E2E_TIMEOUT_MS = 180_000;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `pi-steer` against the session of `home`, once. */
export function steer(home: Pick<CliHome, "cwd" | "env">, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PI_STEER, ...args], { cwd: home.cwd, env: home.env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** `pi-steer inject ... --json` once the session's socket answers (up once pi's session started); its answer. */
export async function inject(home: Pick<CliHome, "cwd" | "env">, args: string[]): Promise<Record<string, unknown>> {
  let run = await steer(home, ["inject", ...args, "--json"]);
  for (const deadline = Date.now() + 30_000; run.code !== 0 && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    run = await steer(home, ["inject", ...args, "--json"]);
  }
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

/** A gate a model server's script awaits: the answer is held until the test opens it (items then arrive mid-turn). */
export function gate(): { held: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { held, open };
}

/** Whether process `pid` still runs. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A message's text, whether its content is a string or parts. */
export const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (p && typeof p === "object" && "text" in p ? String(p.text) : "")).join("")
      : "";

/** The texts of a chat-completions request's messages, without the system prompt. */
export const texts = (messages: readonly unknown[]): string[] =>
  (messages as { role: string; content: unknown }[])
    .filter((m) => m.role !== "system" && m.role !== "developer")
    .map((m) => textOf(m.content));

export interface SessionEntry {
  type: string;
  customType?: string;
  message?: { role?: string; stopReason?: string; content?: unknown[] };
}

/** The entries of the run's one session file. */
export function sessionEntries(home: CliHome): SessionEntry[] {
  const sessions = join(home.agentDir, "sessions");
  const files = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
  expect(files).toHaveLength(1);
  return readSessionFile(join(sessions, files[0]!)) as SessionEntry[];
}

/** How an assistant entry ended: its stopReason, and "(emptied)" for one without content (an interrupted attempt). */
export function assistantStop(entry: SessionEntry): string | undefined {
  const m = entry.message;
  if (m?.role !== "assistant") return undefined;
  return `${m.stopReason}${m.content?.length === 0 ? " (emptied)" : ""}`;
}

/** A pi-ttsr rule file (`.pi/rules/*.md`). */
export const ruleFile = (condition: string, body: string, scope?: string) =>
  `---\ndescription: ${body}\ncondition: ${JSON.stringify(condition)}\n${scope ? `scope: ${JSON.stringify(scope)}\n` : ""}---\n${body}\n`;

/** A prose answer that breaks a no-eval rule early and goes on after it. */
export const EVAL_ANSWER = "Sure. Just call eval(input) and return the result; that is the quickest way.";
export const NO_EVAL_RULE = { ".pi/rules/no-eval.md": ruleFile("\\beval\\(", "Never call eval().") };

/** A TypeScript file whose first line breaks a no-any rule, and which goes on after it. */
export const ANY_FILE = `let x: any = 1;\n${Array.from({ length: 30 }, (_, i) => `export const v${i} = ${i};\n`).join("")}`;
export const NO_ANY_RULE = {
  ".pi/rules/no-any.md": ruleFile(":\\s*any\\b", "Never use any.", "tool:write(*.ts)"),
};
