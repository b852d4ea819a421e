import { packageTestConfig } from "../../scripts/vitest-base.ts";

export default packageTestConfig();
