import type { PiHosts } from "@pi-rails/agent-core/kit";
import type { HostInput, SessionHost } from "./delivery-core.ts";
import { patchedHost } from "./patched.ts";
import { stockHost } from "./stock.ts";

/** steering-bridge's two hosts; the kit's `chooseHost` picks one per session (the patched one needs both hooks). */
export const STEERING_HOSTS: PiHosts<HostInput, SessionHost> = {
  needs: ["checkpoint", "loop_checkpoint"],
  patched: patchedHost,
  stock: stockHost,
};
