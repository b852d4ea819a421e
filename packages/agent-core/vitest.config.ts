import { join } from "node:path";
import { packageTestConfig } from "../../scripts/vitest-base.ts";

// patches:rebase points the suite at another pi version's pi-agent-core with the patch applied.
const coreDir = process.env.PI_RAILS_CORE_DIR;

export default packageTestConfig(
  coreDir ? { resolve: { alias: { "@earendil-works/pi-agent-core": join(coreDir, "dist", "index.js") } } } : {},
);
