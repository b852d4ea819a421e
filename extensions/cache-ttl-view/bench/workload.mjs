// A realistic coding session for the bench: per turn a prompt, a few tool calls (read, bash, grep, edit) with
// results of varied size, and an answer. Deterministic (no randomness), so runs compare.

const filler = (chars, word) => `${word} `.repeat(Math.ceil(chars / (word.length + 1))).slice(0, chars);

/** `chars` of output in lines of 30-70 chars, as files and command output come (a summary counts their lines). */
function lines(chars, word) {
  let out = "";
  for (let n = 0; out.length < chars; n++) out += `${filler(30 + ((n * 17) % 41), `${word}${n % 10}`)}\n`;
  return out.slice(0, chars);
}

/** About `count` messages (user, assistant, toolResult) with ms timestamps from `start`. */
export function benchSession(count, start = 1_000_000) {
  const messages = [];
  let t = start;
  const tick = (ms) => {
    t += ms;
    return t;
  };
  let call = 0;
  const tools = [
    (i) => ["read", { path: `src/module-${i}.ts` }, lines(2000 + ((i * 797) % 6000), `code${i}`)],
    (i) => ["bash", { command: `pnpm test --filter pkg-${i}` }, lines(300 + ((i * 331) % 3000), "PASS")],
    (i) => [
      "grep",
      { pattern: `symbol${i}`, path: "src" },
      `src/a-${i}.ts:12:symbol${i}\nsrc/b-${i}.ts:40:symbol${i}\n`,
    ],
    (i) => [
      "edit",
      { path: `src/module-${i}.ts`, edits: [{ oldText: filler(120, "old"), newText: filler(140, "new") }] },
      "Edited.",
      // What pi's edit tool keeps for the UI (never sent to the model): the diff, as its session holds it.
      {
        diff: `-${12 + (i % 80)} ${filler(120, "old")}\n+${12 + (i % 80)} ${filler(140, "new")}`,
        firstChangedLine: 12,
      },
    ],
  ];
  for (let turn = 0; messages.length < count; turn++) {
    messages.push({
      role: "user",
      content: [{ type: "text", text: `task ${turn}: ${filler(300, "please")}` }],
      timestamp: tick(1000),
    });
    for (let k = 0; k < 3 && messages.length < count; k++) {
      // pi's tool results carry `details` (undefined unless the tool keeps something for the UI).
      const [name, args, result, details] = tools[(turn + k) % tools.length](turn * 3 + k);
      const id = `call_${++call}`;
      messages.push({
        role: "assistant",
        content: [{ type: "toolCall", id, name, arguments: args }],
        timestamp: tick(1000),
        usage: { input: 1000, output: 50, cacheRead: 0, cacheWrite: 0 },
      });
      messages.push({
        role: "toolResult",
        toolCallId: id,
        toolName: name,
        content: [{ type: "text", text: result }],
        details,
        isError: false,
        timestamp: tick(10),
      });
    }
    messages.push({
      role: "assistant",
      content: [{ type: "text", text: `done ${turn}. ${filler(600, "because")}` }],
      timestamp: tick(1000),
    });
  }
  messages.length = count;
  // End on a user message, as a request does.
  messages[count - 1] = { role: "user", content: "next", timestamp: tick(1000) };
  return { messages, lastAt: t };
}
