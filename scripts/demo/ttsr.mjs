// Demo stage: pi-ttsr + rulebook in the real pi CLI. Rule files of several formats; `pi -p` streams an answer that
// breaks a rule: what the model was sent, where the stream was cut, what was injected, the final answer, and what
// the session file holds. A stage of `pnpm demo` (and of `pnpm demo --installed`, on an installed pi).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { checkoutTarget, piOptions } from "./target.mjs";

export const RULES = {
  ".pi/rules/no-legacy-fetch.md": `---
description: legacyFetch() was removed in v3
condition: "legacyFetch\\\\("
scope: text
---
\`legacyFetch()\` was removed in v3. Use \`fetchV2(url, { timeoutMs })\`, which returns a Result instead of throwing.
`,
  ".cursor/rules/house-style.mdc": `---
description: House style for TypeScript in this repo
alwaysApply: true
---
Prefer named exports. Keep functions under 40 lines.
`,
  ".cursor/rules/testing.mdc": `---
description: How to write tests here (vitest, real files in temp dirs)
globs: ["**/*.test.ts"]
---
Use vitest. Create real files in temp dirs; never mock the module under test.
`,
};

export const VIOLATING = `To load the user you can call the helper directly:

\`\`\`ts
const user = await legacyFetch("/api/user", { retries: 3 });
\`\`\`

This retries three times and throws on failure, so wrap it in try/catch. ${"It also caches the response. ".repeat(12)}`;
export const COMPLIANT = `Use \`fetchV2\`, which replaced \`legacyFetch\` in v3:

\`\`\`ts
const result = await fetchV2("/api/user", { timeoutMs: 5_000 });
if (!result.ok) return handle(result.error);
const user = result.value;
\`\`\``;

/** Run the stage; returns what happened (for the caller's summary and tests). */
export async function runTtsrStage({ root, bold = (t) => t, dim = (t) => t, target = checkoutTarget(root) }) {
  const { prepareCliHome, runPi, startModelServer } = await import(join(root, "packages/testkit/dist/index.js"));
  const server = await startModelServer({
    script: (request) => {
      const injected = JSON.stringify(request.messages).includes("rule_violation");
      return injected ? { text: COMPLIANT, chunkSize: 4, delayMs: 1 } : { text: VIOLATING, chunkSize: 4, delayMs: 4 };
    },
  });
  const home = target.prepareHome(prepareCliHome, {
    server,
    files: { ...RULES, "src/api.ts": "export {};\n" },
  });
  try {
    console.log(bold("pi-rails demo: Time Traveling Streamed Rules in the real pi CLI"));
    console.log(dim(`project ${home.cwd}\nmodel   embedded scripted model at ${server.baseUrl} (no API key)\n`));
    console.log(`Rule files in the project (found by rulebook, watched by pi-ttsr):`);
    for (const path of Object.keys(RULES)) console.log(`  ${path}`);
    console.log(`\n$ pi -p "How do I load the current user in src/api.ts?"${target.label(["pi-ttsr", "rulebook"])}\n`);

    const run = await runPi(
      [
        "--mode",
        "json",
        "-p",
        "How do I load the current user in src/api.ts?",
        ...target.args(["pi-ttsr", "rulebook"]),
      ],
      piOptions(target, { home: home.home, cwd: home.cwd, timeoutMs: 60_000 }),
    );
    if (run.code !== 0) {
      console.error(run.stderr);
      throw new Error(`pi exited with ${run.code}`);
    }
    const [first, second] = server.requests;
    const systemPrompt = first?.messages.find((message) => message.role === "system")?.content ?? "";
    const systemText = typeof systemPrompt === "string" ? systemPrompt : JSON.stringify(systemPrompt);

    console.log(bold("1. What the model was sent first"));
    console.log(
      `   always-apply rule in the system prompt: ${systemText.includes("Prefer named exports") ? "yes" : "no"}`,
    );
    console.log(
      `   'testing' rule listed by description:   ${systemText.includes("How to write tests here") ? "yes" : "no"}`,
    );
    console.log(
      `   TTSR rule text in the prompt:           ${systemText.includes("returns a Result") ? "yes" : "no (0 tokens until it fires)"}`,
    );

    console.log(bold("\n2. The model streams, and starts to break the rule"));
    // The patched pi's stream hook cuts the request inside the loop (its stream_abort event); on stock pi the
    // extension stops the run (ctx.abort) and replaces the cut message at pi's message_end. Either way the server
    // saw the first stream closed early.
    const streamAbortAt = run.events.findIndex((event) => event.type === "stream_abort");
    const abortAt =
      streamAbortAt >= 0
        ? streamAbortAt
        : run.events.findIndex((event) => event.type === "message_end" && event.message?.role === "assistant");
    const abort = streamAbortAt >= 0 ? run.events[streamAbortAt] : undefined;
    const cut = Boolean(abort) || Boolean(first?.closedEarly);
    // What pi had shown of the answer when the rule matched (the chunk that completed the match is never shown).
    const partial = run.events
      .slice(0, Math.max(0, abortAt))
      .filter((event) => event.type === "message_update" && event.assistantMessageEvent?.type === "text_delta")
      .map((event) => event.assistantMessageEvent.delta)
      .join("");
    console.log(`   the answer so far: ${JSON.stringify(partial.slice(-90))}`);
    console.log(`   the next chunk completes the rule's condition /legacyFetch\\(/ (no-legacy-fetch)`);
    console.log(`   server: first stream closed by pi after ${first?.deltasSent} of ${first?.deltasPlanned} chunks`);
    if (target.host === "stock") {
      console.log(
        "   pi: pi-ttsr stopped the run at that delta (ctx.abort) and emptied the cut message (pi's message_end); the partial is never sent again",
      );
      console.log(
        dim(
          "   (stock pi: the retry is a new run; the text before the match streams on both pis and is cleared, but only\n" +
            "   the patched pi's stream hook cuts the request inside the turn, before the completing chunk is shown)",
        ),
      );
    } else {
      console.log(
        `   pi: the stream hook cut that request (pi's stream_abort event, attempt ${abort?.consecutive ?? "?"}); the partial answer is dropped`,
      );
    }

    console.log(
      bold(
        target.host === "stock"
          ? "\n3. The rule is injected (hidden) and the run starts again (pi's agent_settled event)"
          : "\n3. The rule is injected (hidden) and the turn is retried",
      ),
    );
    const textOf = (message) =>
      typeof message.content === "string"
        ? message.content
        : (message.content ?? []).map((part) => part.text ?? "").join("");
    const injection = (second?.messages ?? [])
      .map(textOf)
      .join("\n")
      .match(/<system-interrupt[^>]*>/)?.[0];
    console.log(`   injected: ${injection ?? "(none)"}`);
    const partialLeaked = JSON.stringify(second?.messages ?? []).includes('legacyFetch("/api/user"');
    console.log(`   the dropped partial sent again: ${partialLeaked ? "yes" : "no"}`);

    console.log(bold("\n4. Final answer printed by pi"));
    const end = [...run.events].reverse().find((event) => event.type === "agent_end");
    const final = end?.messages?.filter((message) => message.role === "assistant").at(-1);
    const text = (final?.content ?? [])
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("");
    console.log(text.replace(/^/gm, "   "));

    console.log(bold("\n5. What the session file on disk holds"));
    const files = [];
    const walk = (dir) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith(".jsonl")) files.push(path);
      }
    };
    walk(home.agentDir);
    for (const line of readFileSync(files[0], "utf8").trim().split("\n")) {
      const entry = JSON.parse(line);
      if (["session", "model_change", "thinking_level_change"].includes(entry.type)) continue;
      if (entry.type === "custom") {
        console.log(
          `   custom entry ${entry.customType}: an extension's own record in the session file, never sent to the model ${dim(JSON.stringify(entry.data))}`,
        );
        continue;
      }
      // custom_message: a message an extension added to the conversation (here pi-ttsr's rule, hidden in the TUI).
      const empty =
        entry.message?.role === "assistant" && (entry.message.content ?? []).length === 0
          ? ", empty: the interrupted attempt, kept for its usage, never sent"
          : "";
      const aborted =
        entry.message?.stopReason === "aborted" ? ", aborted: kept for its usage, never sent again" : empty;
      const what = `${entry.message?.role ?? entry.customType ?? ""}${aborted}`;
      console.log(
        `   ${entry.type}${what ? ` (${what}${entry.display === false ? ", hidden from the UI, seen by the model" : ""})` : ""}`,
      );
    }
    return {
      host: target.host,
      alwaysApplyRuleSent: systemText.includes("Prefer named exports"),
      aborted: cut,
      injection: injection ?? null,
      partialLeaked,
      finalText: text,
      piExitCode: run.code,
    };
  } finally {
    await server.close();
    home.dispose();
  }
}

/** Whether the stage showed what it is for (`pnpm demo` exits non-zero otherwise). */
export const ttsrStagePassed = (result) =>
  result.alwaysApplyRuleSent &&
  result.aborted &&
  Boolean(result.injection) &&
  !result.partialLeaked &&
  result.piExitCode === 0;
