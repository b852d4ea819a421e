import { packageTestConfig } from "../../scripts/vitest-base.ts";

export default packageTestConfig({ test: { testTimeout: 60_000 } });
