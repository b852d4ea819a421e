import type { PiHosts } from "@pi-rails/agent-core/kit";
import type { DeliveryCore, Host } from "./delivery.ts";
import { patchedHost } from "./patched.ts";
import { stockHost } from "./stock.ts";

/** pi-ttsr's two hosts; the kit's `chooseHost` picks one per session (the patched one needs `stream_text`). */
export const TTSR_HOSTS: PiHosts<DeliveryCore, Host> = {
  needs: ["stream_text"],
  patched: patchedHost,
  stock: stockHost,
};
