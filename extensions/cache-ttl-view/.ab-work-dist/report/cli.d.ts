import { type CliOutput } from "@pi-rails/agent-core/kit";
export declare const USAGE: string;
/** `cache-ttl report <session.jsonl> [--json] [--ttl <s>]`; returns the kit's exit code. Never throws. */
export declare function main(argv: string[], io: CliOutput): Promise<number>;
//# sourceMappingURL=cli.d.ts.map