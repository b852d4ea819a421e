import { resolveTtl } from "../clock/ttl.js";
import { SessionView } from "../engine/session-view.js";
import { messageTokens } from "../model/tokens.js";
import { prefixCost } from "./prices.js";
/** Per-message token estimates (the package's one estimate) and serialisations, cached by object and API. */
class Sizer {
    #cache = new WeakMap();
    api;
    of(m) {
        let v = this.#cache.get(m);
        if (!v || v.api !== this.api) {
            v = { api: this.api, json: JSON.stringify(m), tokens: messageTokens(m, this.api) };
            this.#cache.set(m, v);
        }
        return v;
    }
}
/** Cache accounting of one request: the prefix shared with the previous request is read when warm; the rest written. */
function account(sizer, view, previous, warm, prices) {
    const jsons = view.map((m) => sizer.of(m).json);
    let total = 0;
    let read = 0;
    let shared = warm && previous !== undefined;
    for (let i = 0; i < view.length; i++) {
        const tokens = sizer.of(view[i]).tokens;
        total += tokens;
        if (shared && previous?.[i] === jsons[i])
            read += tokens;
        else
            shared = false;
    }
    const row = { readTokens: read, writeTokens: total - read, cost: prefixCost(prices, read, total - read) };
    return { row, jsons };
}
const add = (a, b) => ({
    readTokens: a.readTokens + b.readTokens,
    writeTokens: a.writeTokens + b.writeTokens,
    cost: a.cost + b.cost,
});
/**
 * Replay a recorded session with its timestamps: per request, the prompt prefix written and read with and without
 * cache-ttl-view, and the cost of each at the model's prices. Without pruning the raw context is sent; with pruning
 * the same SessionView the extension uses renders the view, with what the extension did replayed: pins, unpins and
 * in-place restores saved in the session, and the TTL it stored (else the one of the model's API and retention).
 */
export function replaySession(session, options) {
    const sizer = new Sizer();
    const view = new SessionView(options.settings, session.cwd);
    view.load([]);
    const rows = [];
    let prevAt;
    let prevBase;
    let prevView;
    const zero = { readTokens: 0, writeTokens: 0, cost: 0 };
    let baseTotal = zero;
    let viewTotal = zero;
    let storedTtl;
    let lastTtl = options.ttlSeconds ?? 300;
    for (const [index, request] of session.requests.entries()) {
        for (const entry of request.stateEntries) {
            if (entry.kind === "pin" || entry.kind === "unpin" || entry.kind === "restore")
                view.apply(entry);
            else if (entry.ttlSeconds > 0)
                storedTtl = entry.ttlSeconds;
        }
        const derived = resolveTtl(options.settings.ttlSeconds, { api: request.api, provider: request.provider, id: request.model }, options.retention ?? "short").seconds;
        const viewTtl = options.ttlSeconds ?? storedTtl ?? derived;
        const cacheTtl = viewTtl ?? 300;
        lastTtl = cacheTtl;
        sizer.api = request.api;
        const idle = prevAt === undefined ? undefined : (request.at - prevAt) / 1000;
        const warm = idle !== undefined && idle < cacheTtl;
        const base = account(sizer, request.context, prevBase, warm, options.prices);
        const rendered = view.render(request.context.slice(), {
            now: request.at,
            ttlSeconds: viewTtl,
            ...(request.api !== undefined ? { api: request.api } : {}),
        });
        const pruned = account(sizer, rendered.messages, prevView, warm, options.prices);
        rows.push({
            index,
            at: new Date(request.at).toISOString(),
            ...(idle !== undefined ? { idleSeconds: Math.round(idle) } : {}),
            warm,
            pruned: rendered.plan?.ids.length ?? 0,
            baseline: base.row,
            withPruning: pruned.row,
        });
        baseTotal = add(baseTotal, base.row);
        viewTotal = add(viewTotal, pruned.row);
        prevAt = request.at;
        prevBase = base.jsons;
        prevView = pruned.jsons;
    }
    const last = session.requests.at(-1);
    return {
        ttlSeconds: lastTtl,
        ...(last?.model ? { model: `${last.provider ?? "?"}/${last.model}` } : {}),
        prices: options.prices,
        requests: rows,
        totals: { baseline: baseTotal, withPruning: viewTotal, saved: baseTotal.cost - viewTotal.cost },
        skippedLines: session.skippedLines,
    };
}
//# sourceMappingURL=replay.js.map