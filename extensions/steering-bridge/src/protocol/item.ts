import { DELIVERY_MODES } from "@pi-rails/agent-core/kit";
import { z } from "zod";

/**
 * The rules of a steering item's fields, stated once: the queue checks every producer's input with `ItemInput`
 * (socket, `/steer`, `pi.events`, the in-process API) and the socket's params are built from `ITEM_FIELDS`, so every
 * producer meets the same rules. Each message says what is wrong; the field is the issue's path.
 */
export const ITEM_KINDS = ["message", "reminder", "note"] as const;
export const LEFTOVER_POLICIES = ["carry", "discard", "audit"] as const;

/**
 * A zod error option (zod 3's `errorMap`) that says "is required" for a missing value and `message` for every other
 * issue of the schema that has no message of its own (a wrong type, or a check stated without one).
 */
export const expect = (message: string | ((input: unknown) => string)): { errorMap: z.ZodErrorMap } => ({
  errorMap: (_issue, { data }) => ({
    message: data === undefined ? "is required" : typeof message === "string" ? message : message(data),
  }),
});
/** A zod error option that says `message` for every issue of the schema that has no message of its own. */
export const says = (message: string): { errorMap: z.ZodErrorMap } => ({ errorMap: () => ({ message }) });
/**
 * An integer as the socket has always checked one (zod 4's number rules, which zod 3's differ from): NaN, +-Infinity
 * (`1e400` in JSON parses to Infinity) and non-numbers get `message` alone, a fraction gets `whole` alone, an integer
 * beyond 2^53 gets `whole` too; then `checks`, each with its own message or else `message`.
 */
export const integer = (message: string, whole: string, checks: (number: z.ZodNumber) => z.ZodNumber = (n) => n) =>
  z
    .custom<number>(Number.isInteger, (input) => ({ message: Number.isFinite(input) ? whole : message, fatal: true }))
    .pipe(checks(z.number(says(message)).safe(whole)));
/** One of `values`; a wrong string is quoted back (its first 64 characters). */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(
    values,
    expect((input) => `must be one of ${values.join(", ")}${got(input)}`),
  );
const got = (input: unknown) => (typeof input === "string" ? `, got ${JSON.stringify(input.slice(0, 64))}` : "");
const text = (max: number) =>
  z.string(says("must be a string")).min(1, "must not be empty").max(max, `must be at most ${max} characters`);
/** A time to live in milliseconds: a positive integer; `cap` adds a bound (the socket's: Node's longest timer). */
export const milliseconds = (cap: (number: z.ZodNumber) => z.ZodNumber = (number) => number) =>
  integer("must be a number of milliseconds", "must be an integer", (number) =>
    cap(number.positive("must be positive")),
  );

/** What a producer sets on an item, but `kind` and `mode` (on the socket, the method decides those). */
export const ITEM_FIELDS = {
  /**
   * The producer's own id for the item, making a retry safe: an id already queued or settled is not queued again
   * (a client that lost its connection mid-request sends the same request again).
   */
  id: z
    .string(says("must be a string"))
    .regex(/^[A-Za-z0-9._:-]{1,64}$/, "must be 1-64 characters of A-Z a-z 0-9 . _ : -")
    .optional(),
  /** Its size cap (256 KiB) is the queue's own limit, checked after these rules. */
  content: z
    .string(expect("must be a string"))
    .min(1, "must not be empty")
    // What `trim()` removes is what `\s` matches: blank is no non-space character (a check, cheaper than a refine).
    .regex(/\S/, "must not be blank"),
  dedupeKey: text(256).optional(),
  ttlMs: milliseconds().optional(),
  leftover: oneOf(LEFTOVER_POLICIES).optional(),
  source: text(128).optional(),
};
export const DeliveryModeField = oneOf(DELIVERY_MODES);

/** What every producer hands the queue (it fills id, enqueuedAt, expiresAt and the defaults). */
export const ItemInput = z
  .object({ ...ITEM_FIELDS, kind: oneOf(ITEM_KINDS), mode: DeliveryModeField.optional() }, says("must be an object"))
  // One refinement for both rules of `mode`: zod 3 runs each refinement as a wrapper schema, slow next to a check.
  .superRefine((item, context) => {
    if ((item.kind === "note") === (item.mode === undefined)) return;
    const message =
      item.kind === "note"
        ? "inbox notes have no mode (they are drained at pre_compact / post_compact)"
        : "is required";
    context.addIssue({ code: "custom", path: ["mode"], message });
  });
export type SteeringItemInput = z.input<typeof ItemInput>;

/** Where a zod issue is: its path (`a.b`), or `whole` for the value itself. */
export const issuePath = (issue: z.ZodIssue, whole: string): string =>
  issue.path.length > 0 ? issue.path.map(String).join(".") : whole;
