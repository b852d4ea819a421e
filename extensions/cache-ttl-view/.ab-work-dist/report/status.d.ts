import type { ResolvedTtl } from "../clock/ttl.ts";
import type { SessionView } from "../engine/session-view.ts";
import type { ViewMessage } from "../model/messages.ts";
import type { SettingsProblem } from "../settings/settings.ts";
import { type Prices } from "./prices.ts";
export interface StatusInput {
    now: number;
    ttl: ResolvedTtl;
    model: {
        provider: string;
        id: string;
        cost?: Prices;
    } | undefined;
    problems: readonly SettingsProblem[];
    /** The session's current context (pi's), to label pruned blocks. */
    messages: readonly ViewMessage[];
}
/** The `/cache-ttl` text: clock, what is pruned, tokens and money saved at the model's prices. */
export declare function statusReport(view: SessionView, input: StatusInput): string;
//# sourceMappingURL=status.d.ts.map