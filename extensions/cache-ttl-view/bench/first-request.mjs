// The first request of a fresh process into an expired, never-pruned session (`pi -p --continue`): nothing compiled
// yet, no preparation, and the messages are a structuredClone of the session's, as pi's runner hands them to a
// `context` handler. Prints {"ms": …, "pruned": …}. Run by run.mjs in a child process per sample.

import { defaultSettings, SessionView } from "../dist/index.js";
import { benchSession } from "./workload.mjs";

const size = Number(process.argv[2] ?? 100_000);
const { messages, lastAt } = benchSession(size);
const context = structuredClone(messages);
const view = new SessionView(defaultSettings({ ttlSeconds: 300 }));
view.load([{ kind: "touch", at: lastAt, ttlSeconds: 300 }]);
const t = performance.now();
const r = view.render(context, { now: lastAt + 10 * 60_000, ttlSeconds: 300 });
process.stdout.write(`${JSON.stringify({ ms: performance.now() - t, pruned: r.plan?.ids.length ?? 0 })}\n`);
