import { DELIVERY_MODES } from "@pi-rails/agent-core/kit";
import { z } from "zod";

/**
 * The rules of a steering item's fields, stated once: the queue checks every producer's input with `ItemInput`
 * (socket, `/steer`, `pi.events`, the in-process API) and the socket's params are built from `ITEM_FIELDS`, so every
 * producer meets the same rules. Each message says what is wrong; the field is the issue's path.
 */
export const ITEM_KINDS = ["message", "reminder", "note"] as const;
export const LEFTOVER_POLICIES = ["carry", "discard", "audit"] as const;

/** A zod error option that says "is required" for a missing value and `message` for a wrong one. */
export const expect = (message: string | ((input: unknown) => string)) => ({
  error: ({ input }: { input?: unknown }) =>
    input === undefined ? "is required" : typeof message === "string" ? message : message(input),
});
/** One of `values`; a wrong string is quoted back (its first 64 characters). */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(
    values,
    expect((input) => `must be one of ${values.join(", ")}${got(input)}`),
  );
const got = (input: unknown) => (typeof input === "string" ? `, got ${JSON.stringify(input.slice(0, 64))}` : "");
const text = (max: number) =>
  z
    .string({ error: "must be a string" })
    .min(1, { error: "must not be empty" })
    .max(max, `must be at most ${max} characters`);

/** What a producer sets on an item, but `kind` and `mode` (on the socket, the method decides those). */
export const ITEM_FIELDS = {
  /**
   * The producer's own id for the item, making a retry safe: an id already queued or settled is not queued again
   * (a client that lost its connection mid-request sends the same request again).
   */
  id: z
    .string({ error: "must be a string" })
    .regex(/^[A-Za-z0-9._:-]{1,64}$/, "must be 1-64 characters of A-Z a-z 0-9 . _ : -")
    .optional(),
  /** Its size cap (256 KiB) is the queue's own limit, checked after these rules. */
  content: z
    .string(expect("must be a string"))
    .min(1, { error: "must not be empty" })
    .refine((content) => content.trim() !== "", { error: "must not be blank" }),
  dedupeKey: text(256).optional(),
  ttlMs: z
    .number({ error: "must be a number of milliseconds" })
    .int("must be an integer")
    .positive("must be positive")
    .optional(),
  leftover: oneOf(LEFTOVER_POLICIES).optional(),
  source: text(128).optional(),
};
export const DeliveryModeField = oneOf(DELIVERY_MODES);

/** What every producer hands the queue (it fills id, enqueuedAt, expiresAt and the defaults). */
export const ItemInput = z
  .object({ ...ITEM_FIELDS, kind: oneOf(ITEM_KINDS), mode: DeliveryModeField.optional() }, "must be an object")
  .refine((item) => item.kind === "note" || item.mode !== undefined, { path: ["mode"], error: "is required" })
  .refine((item) => item.kind !== "note" || item.mode === undefined, {
    path: ["mode"],
    error: "inbox notes have no mode (they are drained at pre_compact / post_compact)",
  });
export type SteeringItemInput = z.input<typeof ItemInput>;

/** Where a zod issue is: its path (`a.b`), or `whole` for the value itself. */
export const issuePath = (issue: z.core.$ZodIssue, whole: string): string =>
  issue.path.length > 0 ? issue.path.map(String).join(".") : whole;
