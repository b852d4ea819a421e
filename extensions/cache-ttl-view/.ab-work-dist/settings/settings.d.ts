import { type SettingsIssue } from "@pi-rails/agent-core/kit";
import { z } from "zod";
/** Pins: blocks matching any of these are never pruned. */
export declare const PinsSchema: z.ZodObject<{
    tools: z.ZodDefault<z.ZodArray<z.ZodString>>;
    paths: z.ZodDefault<z.ZodArray<z.ZodString>>;
    ids: z.ZodDefault<z.ZodArray<z.ZodString>>;
}, z.core.$strict>;
/**
 * Settings key `cacheTtl` in pi's settings files. Unknown keys are errors, so a typo never silently does nothing;
 * any error turns pruning off for the session (no pruning rather than wrong pruning).
 */
export declare const CacheTtlSettingsSchema: z.ZodObject<{
    enabled: z.ZodDefault<z.ZodBoolean>;
    ttlSeconds: z.ZodOptional<z.ZodNumber>;
    bufferSeconds: z.ZodDefault<z.ZodNumber>;
    keepRecentTurns: z.ZodDefault<z.ZodNumber>;
    keepRecentIntactTurns: z.ZodDefault<z.ZodNumber>;
    maxTextChars: z.ZodDefault<z.ZodNumber>;
    maxFieldChars: z.ZodDefault<z.ZodNumber>;
    maxListItems: z.ZodDefault<z.ZodNumber>;
    maxDictKeys: z.ZodDefault<z.ZodNumber>;
    maxBase64Chars: z.ZodDefault<z.ZodNumber>;
    keepRecentImages: z.ZodDefault<z.ZodNumber>;
    maxImageBase64Total: z.ZodDefault<z.ZodNumber>;
    minGainTokens: z.ZodDefault<z.ZodNumber>;
    pins: z.ZodDefault<z.ZodObject<{
        tools: z.ZodDefault<z.ZodArray<z.ZodString>>;
        paths: z.ZodDefault<z.ZodArray<z.ZodString>>;
        ids: z.ZodDefault<z.ZodArray<z.ZodString>>;
    }, z.core.$strict>>;
}, z.core.$strict>;
/** The relations between fields that no single field shows (each message names the fields involved). */
export declare function crossFieldProblems(s: {
    ttlSeconds?: number | undefined;
    bufferSeconds?: number | undefined;
}): string[];
export type CacheTtlSettings = z.infer<typeof CacheTtlSettingsSchema>;
export type Pins = z.infer<typeof PinsSchema>;
/** The defaults, for tests and the report bin. */
export declare function defaultSettings(overrides?: Partial<CacheTtlSettings>): CacheTtlSettings;
/** A settings problem: the kit's one issue type. */
export type SettingsProblem = SettingsIssue;
export interface LoadedSettings {
    settings: CacheTtlSettings;
    problems: SettingsProblem[];
    /** False when fields conflict (see `loadCacheTtlSettings`): the extension then reports the clock but never prunes. */
    valid: boolean;
}
/** Validate one `cacheTtl` section (data from a file: every key is an own key, `constructor` is just a name). */
export declare function checkSection(section: unknown, file: string): SettingsProblem[];
/** The `cacheTtl` key of pi's settings files under the kit's settings rule. */
export declare const CACHE_TTL_SETTINGS: {
    section: string;
    defaults: {
        enabled: boolean;
        bufferSeconds: number;
        keepRecentTurns: number;
        keepRecentIntactTurns: number;
        maxTextChars: number;
        maxFieldChars: number;
        maxListItems: number;
        maxDictKeys: number;
        maxBase64Chars: number;
        keepRecentImages: number;
        maxImageBase64Total: number;
        minGainTokens: number;
        pins: {
            tools: string[];
            paths: string[];
            ids: string[];
        };
        ttlSeconds?: number | undefined;
    };
    fields: () => {
        enabled: z.ZodDefault<z.ZodBoolean>;
        ttlSeconds: z.ZodOptional<z.ZodNumber>;
        bufferSeconds: z.ZodDefault<z.ZodNumber>;
        keepRecentTurns: z.ZodDefault<z.ZodNumber>;
        keepRecentIntactTurns: z.ZodDefault<z.ZodNumber>;
        maxTextChars: z.ZodDefault<z.ZodNumber>;
        maxFieldChars: z.ZodDefault<z.ZodNumber>;
        maxListItems: z.ZodDefault<z.ZodNumber>;
        maxDictKeys: z.ZodDefault<z.ZodNumber>;
        maxBase64Chars: z.ZodDefault<z.ZodNumber>;
        keepRecentImages: z.ZodDefault<z.ZodNumber>;
        maxImageBase64Total: z.ZodDefault<z.ZodNumber>;
        minGainTokens: z.ZodDefault<z.ZodNumber>;
        pins: z.ZodDefault<z.ZodObject<{
            tools: z.ZodDefault<z.ZodArray<z.ZodString>>;
            paths: z.ZodDefault<z.ZodArray<z.ZodString>>;
            ids: z.ZodDefault<z.ZodArray<z.ZodString>>;
        }, z.core.$strict>>;
    };
};
/**
 * Read `cacheTtl` from the user then the project settings file (project wins per key) under the kit's rule: a bad
 * key is said once and ignored, the other keys are kept. Problems are returned, never thrown. Fields that conflict
 * (a buffer not below the TTL) are no single bad key: then `valid` is false and the session does not prune.
 */
export declare function loadCacheTtlSettings(cwd: string, agentDir?: string): LoadedSettings;
//# sourceMappingURL=settings.d.ts.map