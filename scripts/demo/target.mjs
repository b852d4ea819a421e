// Which pi a demo stage runs, and how it gets the extensions. `pnpm demo` runs the checkout's patched pi with
// `-e extensions/<name>`; `pnpm demo --stock` runs the published pi 1.6 (stock, no patch) the same way;
// `pnpm demo --installed` runs a pi installed from a registry, with the extensions that `pi install npm:...`
// installed (its settings' `packages`), and the `pi-steer` that install linked in pi's npm folder.
// `host` says which pi it is ("patched" or "stock"): the stages narrate what differs between the two.
import { symlinkSync } from "node:fs";
import { join } from "node:path";

/** The checkout: the workspace's pi, each extension loaded from its folder with -e. */
export function checkoutTarget(root, { piCli, host = "patched" } = {}) {
  return {
    host,
    label: (names) => names.map((name) => ` -e extensions/${name}`).join(""),
    args: (names) => names.flatMap((name) => ["-e", join(root, "extensions", name)]),
    piCli,
    env: {},
    prepareHome: (prepareCliHome, options) => prepareCliHome(options),
    piSteer: join(root, "extensions", "steering-bridge", "bin", "pi-steer.mjs"),
  };
}

/**
 * An installed pi: `bin` is the npm prefix's bin folder (holding `pi`), `packages` what
 * `pi install` wrote into the user's settings, `npmDir` the folder pi 1.6 installed them into (`<agent dir>/npm`, with their bins such as `pi-steer`),
 * `env` the user's npm environment (its prefix and registry). Each stage's home gets the user's packages: the
 * settings that name them and their install, as pi left them (the stages run offline: pi installs nothing there).
 */
export function installedTarget({ bin, packages, npmDir, env, host = "patched" }) {
  return {
    host,
    label: () => "",
    args: () => [],
    piCli: join(bin, "pi"),
    env,
    prepareHome: (prepareCliHome, options) => {
      const home = prepareCliHome({ ...options, settings: { ...options.settings, packages } });
      symlinkSync(npmDir, join(home.agentDir, "npm"));
      return home;
    },
    // pi 1.6 runs `npm install --prefix <agent dir>/npm`: the package's bins are linked there, not on the PATH.
    piSteer: join(npmDir, "node_modules", ".bin", "pi-steer"),
  };
}

/**
 * The published pi 1.6 as `npm i -g @earendil-works/pi-coding-agent` installs it (no pi-rails patch; the testkit's
 * shared install, fetched once from the npm registry), each extension loaded from the checkout with -e.
 */
export async function stockTarget(root) {
  const { installStockPi } = await import(join(root, "packages/testkit/dist/index.js"));
  return checkoutTarget(root, { piCli: installStockPi({ shared: true }).cli, host: "stock" });
}

/** runPi options for a target: its pi, its env under the stage's own. */
export function piOptions(target, options) {
  return { ...options, piCli: target.piCli, env: { ...target.env, ...(options.env ?? {}) } };
}
