/**
 * Which call in flight a host means. pi's id is not always the provider's: on OpenAI Responses it is
 * `call_…|fc_…` (pi-ai joins the API's call_id and item id), while a host that read the API's stream knows
 * `call_…`. Either form names the call: an exact id first, else the one call whose `|`-separated parts include it.
 * Returns undefined when nothing (or more than one call) matches.
 */
export function resolveCallId(requested: string, inFlight: readonly string[]): string | undefined {
  if (inFlight.includes(requested)) return requested;
  const matches = inFlight.filter((id) => id.includes("|") && id.split("|").includes(requested));
  return matches.length === 1 ? matches[0] : undefined;
}
