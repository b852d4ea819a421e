import { hasPiPatchFeature, type PiPatchFeature } from "../patch/detect.ts";

/** Which pi a session runs in: the pi-rails patched pi (loop hooks) or the published pi 1.6 (public events only). */
export type PiHostKind = "patched" | "stock";

/**
 * An extension's two implementations of its own host interface `H`, built from the session's `input`: one for the
 * patched pi, one for stock pi's public events. Both extensions declare theirs this way, so the choice between them
 * is made in one place (`chooseHost`) and the rest of the extension never asks which pi it runs in.
 */
export interface PiHosts<I, H> {
  /** The patch features the patched host relies on; the patched host is chosen only when the running pi has all. */
  readonly needs: readonly PiPatchFeature[];
  readonly patched: (input: I) => H;
  /** Says itself, once, what this pi lacks (its factory gets what it needs to, in `input`). */
  readonly stock: (input: I) => H;
}

/** The host a session got, and which kind it is (for status reports and tests). */
export interface ChosenHost<H> {
  readonly kind: PiHostKind;
  readonly host: H;
}

/**
 * Which host the running pi calls for. The patched pi announces its features on a global symbol when it loads;
 * they never change afterwards, but an extension asks at each session start, so a session reads one answer.
 */
export function piHostKind(needs: readonly PiPatchFeature[]): PiHostKind {
  return needs.length > 0 && needs.every(hasPiPatchFeature) ? "patched" : "stock";
}

/** Decide once, at session start: build the session's host for the pi it runs in. */
export function chooseHost<I, H>(hosts: PiHosts<I, H>, input: I): ChosenHost<H> {
  const kind = piHostKind(hosts.needs);
  return { kind, host: hosts[kind](input) };
}
