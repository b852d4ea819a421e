import { BaseSequencer, type TestSpecification } from "vitest/node";
import { packageTestConfig } from "../../scripts/vitest-base.ts";

/** The whole install and release path (`pnpm demo --installed`): the longest file by far, so it starts first. */
const LONGEST = "installed-pi.e2e.test.ts";

/** Vitest's own order, with the longest file first: it runs beside all the others instead of after them. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [
      ...sorted.filter((f) => f.moduleId.endsWith(LONGEST)),
      ...sorted.filter((f) => !f.moduleId.endsWith(LONGEST)),
    ];
  }
}

export default packageTestConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    // The CLI and install tests spawn pi processes: two files at a time at most, so they share the two cores with
    // the other packages' suites; the install path (about 8 minutes) runs in one while the rest go through the other.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
  },
});
