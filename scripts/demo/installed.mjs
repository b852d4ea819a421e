// pnpm demo --installed: the path from a release to a user's machine, through a real npm registry on this machine.
// 1. Maintainer, in a temp clone of this repository (the checkout is never versioned): `pnpm install`,
//    `pnpm version-packages`, commit, `pnpm release` to a local verdaccio (127.0.0.1, temp storage, every other
//    package proxied from the registry npm is configured with). The registry comes from the standard npm config
//    (npm_config_registry and an npmrc with a token); nothing in the repository names it.
// 2. User, in a fresh HOME and npm prefix whose ~/.npmrc names that registry: `npm i -g @pi-rails/pi
//    --ignore-scripts`, `pi install npm:@pi-rails/<name>` for the four extensions (and one `pi install -l`, which
//    runs `npm install --prefix`), then the installed `pi` on the embedded model runs the three stages of `pnpm demo`
//    with the installed extensions: nothing of pi or the extensions is loaded from the checkout.
// 3. Independent publishing: a changeset for one package, version, release: only that package gets a new version
//    on the registry, and `pi update --all` on the user's machine brings exactly that update.
// Every step prints its wall time; the registry is stopped in `finally`, on failure too.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runCacheTtlStage } from "./cache-ttl.mjs";
import { cacheWarmingHeld, runCacheWarmingCheck } from "./cache-warming.mjs";
import { runSteeringStage } from "./steering.mjs";
import { interruptImmediateHeld, runInterruptImmediateCheck, runTtsrToolCallCheck } from "./stock-checks.mjs";
import { installedTarget } from "./target.mjs";
import { runTtsrStage } from "./ttsr.mjs";
import { hasTmux, runTuiCheck } from "./tui.mjs";

export const EXTENSIONS = ["pi-ttsr", "rulebook", "steering-bridge", "cache-ttl-view"];
/** The package the independent release bumps: no other package depends on it. */
export const INDEPENDENT = "@pi-rails/cache-ttl-view";

/** process.env without npm's and pnpm's per-run settings (a `pnpm test` parent sets npm_config_registry etc.). */
function cleanEnv(extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^npm_/i.test(key) && !/^pnpm_/i.test(key)) env[key] = value;
  }
  return { ...env, TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1", TURBO_NO_UPDATE_NOTIFIER: "1", ...extra };
}

/**
 * A failure of the registry's uplink, not of the command: the local registry answers 404 for a third-party package
 * it could not fetch at that moment (a network blip), or the connection dropped. Worth another try.
 */
const UPLINK_BLIP = /E404[\s\S]*GET \S+\/@(?!pi-rails%2f)|ECONNRESET|ETIMEDOUT|EAI_AGAIN|socket hang up/;

/** Runs a command; throws with its output when it fails (after up to two more tries on an uplink blip). */
function sh(command, args, { cwd, env, timeout = 600_000 }, tries = 3) {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout, maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0 && tries > 1 && UPLINK_BLIP.test(`${result.stdout ?? ""}${result.stderr ?? ""}`)) {
    console.log(`  (${command} ${args[0]}: the registry's uplink failed; trying again)`);
    return sh(command, args, { cwd, env, timeout }, tries - 1);
  }
  if (result.status !== 0) {
    const all = `${result.stdout ?? ""}${result.stderr ?? ""}`;
    const output = all.trim().split("\n").slice(-40).join("\n");
    const hint = UPLINK_BLIP.test(all)
      ? "\nThe local registry could not fetch a third-party package from its uplink. Can Node reach the registry " +
        "npm names from here (network, proxy, and a custom CA in NODE_EXTRA_CA_CERTS, which turbo must pass through)?"
      : "";
    throw new Error(
      `${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal}) in ${cwd}\n${output}${hint}`,
    );
  }
  return result.stdout;
}

/** Every installed copy of a package below `dir` (its package.json paths). */
function copiesOf(dir, name) {
  const found = [];
  const walk = (at, depth) => {
    if (depth > 12 || !existsSync(at)) return;
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.isSymbolicLink()) continue;
      const path = join(at, entry.name);
      if (path.endsWith(join("node_modules", name))) found.push(path);
      else walk(path, depth + 1);
    }
  };
  walk(dir, 0);
  return found;
}

function treeBytes(dir, skip = () => false) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (skip(path)) continue;
    if (entry.isDirectory()) total += treeBytes(path, skip);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** Runs the whole path; returns the facts it established (the caller prints the checks, tests assert on them). */
export async function runInstalledDemo({ root, bold = (t) => t, dim = (t) => t }) {
  const { startLocalRegistry } = await import(join(root, "packages/testkit/dist/index.js"));
  const scratch = mkdtempSync(join(tmpdir(), "pi-rails-installed-"));
  const times = [];
  const step = async (name, fn) => {
    const started = Date.now();
    console.log(bold(`▸ ${name}`));
    try {
      return await fn();
    } finally {
      const seconds = (Date.now() - started) / 1000;
      times.push({ name, seconds });
      console.log(dim(`  (${seconds.toFixed(1)} s)`));
    }
  };
  const facts = { times };
  let registry;
  try {
    registry = await step("start a local npm registry (verdaccio on 127.0.0.1, temp storage)", () =>
      startLocalRegistry(),
    );
    console.log(
      `  ${registry.url}, other packages proxied from ${sh("npm", ["config", "get", "registry"], { cwd: scratch, env: cleanEnv() }).trim()}`,
    );

    // 1. The maintainer's flow, in a clone.
    const clone = join(scratch, "pi-rails");
    // The clone's builds share the checkout's turbo cache: entries are keyed by the hash of their inputs, so a hit
    // is byte for byte what the clone would build (and CI's checkout has just built the same commit).
    const maintainerEnv = cleanEnv({ TURBO_CACHE_DIR: join(root, ".turbo", "cache") });
    const releaseEnv = { ...maintainerEnv, ...registry.env };
    const git = (...args) => sh("git", args, { cwd: clone, env: maintainerEnv });
    await step("git clone this repository into a temp folder; pnpm install", () => {
      sh("git", ["clone", "-q", root, clone], { cwd: scratch, env: maintainerEnv });
      git("config", "user.email", "release@pi-rails.local");
      git("config", "user.name", "pi-rails release");
      sh("pnpm", ["install", "--frozen-lockfile", "--prefer-offline"], { cwd: clone, env: maintainerEnv });
    });
    const published = [];
    for (const group of ["packages", "extensions"]) {
      for (const dir of readdirSync(join(clone, group))) {
        const file = join(clone, group, dir, "package.json");
        if (!existsSync(file)) continue;
        const manifest = JSON.parse(readFileSync(file, "utf8"));
        if (!manifest.private) published.push({ name: manifest.name, file });
      }
    }
    const versionOf = (name) => JSON.parse(readFileSync(published.find((p) => p.name === name).file, "utf8")).version;
    await step("pnpm version-packages; git commit", () => {
      sh("pnpm", ["version-packages"], { cwd: clone, env: maintainerEnv });
      git("add", "-A");
      git("commit", "-q", "-m", "Version packages");
    });
    await step("pnpm release (npm_config_registry and an npmrc token name the local registry)", () => {
      const out = sh("pnpm", ["release"], { cwd: clone, env: releaseEnv });
      for (const line of out.split("\n").filter((l) => /^[✓✗] @pi-rails\//.test(l))) console.log(`  ${line}`);
    });
    facts.firstRelease = {};
    for (const { name } of published) facts.firstRelease[name] = await registry.versions(name);
    facts.tags = git("tag", "--list").trim().split("\n").filter(Boolean);
    facts.changelogs = published.every(({ file }) => existsSync(join(file, "..", "CHANGELOG.md")));
    for (const { name } of published) console.log(`  ${name}: registry has ${facts.firstRelease[name].join(", ")}`);
    console.log(`  git tags in the clone: ${facts.tags.join(" ")}`);

    // 2. A user's machine: a fresh HOME and npm prefix; ~/.npmrc names the registry.
    const home = join(scratch, "user", "home");
    const prefix = join(scratch, "user", "npm-prefix");
    mkdirSync(home, { recursive: true });
    mkdirSync(prefix, { recursive: true });
    writeFileSync(
      join(home, ".npmrc"),
      `registry=${registry.url}\nprefix=${prefix}\ncache=${join(scratch, "user", "npm-cache")}\nfund=false\naudit=false\nupdate-notifier=false\n`,
    );
    const bin = join(prefix, "bin");
    // The user's Node is the one running the demo (pnpm's Node 22): the installed pi needs >= 22.19.
    const userEnv = cleanEnv({
      HOME: home,
      PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH}`,
      NO_COLOR: "1",
    });
    for (const key of Object.keys(userEnv)) if (/^PI_|^TURBO_/.test(key)) delete userEnv[key];
    const user = (command, args, cwd = home) => sh(command, args, { cwd, env: userEnv });

    await step("npm i -g @pi-rails/pi --ignore-scripts", () =>
      user("npm", ["i", "-g", "@pi-rails/pi", "--ignore-scripts"]),
    );
    facts.version = user("pi", ["--version"]).trim();
    console.log(`  $ pi --version\n  ${facts.version}`);
    const installedPi = join(prefix, "lib", "node_modules", "@pi-rails", "pi");
    facts.ownBytes = treeBytes(installedPi, (path) => path === join(installedPi, "node_modules"));
    facts.piAiCopies = copiesOf(join(prefix, "lib"), "@earendil-works/pi-ai").length;
    facts.piTuiCopies = copiesOf(join(prefix, "lib"), "@earendil-works/pi-tui").length;
    console.log(
      `  @pi-rails/pi's own files: ${(facts.ownBytes / 1024 / 1024).toFixed(2)} MB next to stock pi's dependencies; ` +
        `copies of pi-ai: ${facts.piAiCopies}, of pi-tui: ${facts.piTuiCopies}`,
    );

    // The hash check: a file of the patched bundle that is not the one that was built stops pi before it runs.
    const runtime = join(installedPi, "dist", "bundle", "cli-runtime.js");
    const builtRuntime = readFileSync(runtime);
    writeFileSync(runtime, `${builtRuntime}\n// edited\n`);
    const refused = spawnSync("pi", ["--version"], { cwd: home, env: userEnv, encoding: "utf8" });
    writeFileSync(runtime, builtRuntime);
    facts.refusal = { code: refused.status, stderr: refused.stderr };
    console.log(`  with the bundle's dist/bundle/cli-runtime.js edited, pi exits ${refused.status}:`);
    console.log(refused.stderr.trim().split("\n").slice(0, 4).join("\n").replace(/^/gm, "    "));

    // A user who already has stock pi: npm refuses a second `pi` (EEXIST); then both ways out that
    // packages/pi/README.md documents: keep both (own prefix, `pi-rails` linked onto the PATH), or replace.
    const stockHome = join(scratch, "stock-user", "home");
    const stockPrefix = join(scratch, "stock-user", "npm-prefix");
    const localBin = join(stockHome, ".local", "bin");
    mkdirSync(localBin, { recursive: true });
    const stockEnv = {
      ...userEnv,
      HOME: stockHome,
      npm_config_userconfig: join(home, ".npmrc"),
      npm_config_prefix: stockPrefix,
      PATH: `${join(stockPrefix, "bin")}:${localBin}:${dirname(process.execPath)}:${process.env.PATH}`,
    };
    const stock = (command, args) => sh(command, args, { cwd: stockHome, env: stockEnv });
    // These installs reuse what the first one fetched (--prefer-offline: no revalidation round trips); the
    // user's own installs and `pi update` below always ask the registry.
    const offline = "--prefer-offline";
    await step("stock pi installed globally: npm i -g @pi-rails/pi (EEXIST), keep both, replace", () => {
      stock("npm", ["i", "-g", "@earendil-works/pi-coding-agent@1.6.0", "--ignore-scripts", offline]);
      const clash = spawnSync("npm", ["i", "-g", "@pi-rails/pi", offline], {
        cwd: stockHome,
        env: stockEnv,
        encoding: "utf8",
      });
      facts.clash = { code: clash.status, output: `${clash.stdout}${clash.stderr}` };
      console.log(
        `  $ npm i -g @pi-rails/pi\n  exit ${clash.status}: ${facts.clash.output.match(/EEXIST[^\n]*/)?.[0] ?? "(no EEXIST)"}`,
      );
      console.log("  $ npm i -g --prefix ~/.pi-rails @pi-rails/pi");
      stock("npm", ["i", "-g", "--prefix", join(stockHome, ".pi-rails"), "@pi-rails/pi", offline]);
      console.log("  $ ln -s ~/.pi-rails/bin/pi-rails ~/.local/bin/pi-rails");
      stock("ln", ["-s", join(stockHome, ".pi-rails", "bin", "pi-rails"), join(localBin, "pi-rails")]);
      // Stock pi prints its version on stderr when stdout is not a terminal; both streams are read.
      const stockVersion = spawnSync("pi", ["--version"], { cwd: stockHome, env: stockEnv, encoding: "utf8" });
      facts.sideBySide = {
        stock: `${stockVersion.stdout}${stockVersion.stderr}`.trim(),
        piRails: stock("pi-rails", ["--version"]).trim(),
      };
      console.log(`  pi --version: ${facts.sideBySide.stock}\n  pi-rails --version: ${facts.sideBySide.piRails}`);
      console.log("  $ npm uninstall -g @earendil-works/pi-coding-agent && npm i -g @pi-rails/pi");
      stock("npm", ["uninstall", "-g", "@earendil-works/pi-coding-agent"]);
      stock("npm", ["i", "-g", "@pi-rails/pi", offline]);
      facts.replaced = stock("pi", ["--version"]).trim();
      console.log(`  pi --version: ${facts.replaced}`);
    });

    await step("pi install npm:@pi-rails/<name>, for each of the four extensions", () => {
      for (const name of EXTENSIONS) {
        console.log(`  $ pi install npm:@pi-rails/${name}`);
        user("pi", ["install", `npm:@pi-rails/${name}`]);
      }
    });
    facts.list = user("pi", ["list"]);
    const listed = facts.list
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line.startsWith("/"));
    // pi 1.6 installs npm packages into its agent dir (`<agent dir>/npm`), not the global npm prefix.
    const npmDir = join(home, ".pi", "agent", "npm");
    facts.listedFromPrefix =
      listed.length === EXTENSIONS.length && listed.every((path) => path.startsWith(npmDir) && !path.startsWith(root));
    console.log(`  $ pi list\n${facts.list.trimEnd().replace(/^/gm, "  ")}`);
    const settings = JSON.parse(readFileSync(join(home, ".pi", "agent", "settings.json"), "utf8"));
    const project = join(home, "project");
    mkdirSync(project);
    await step("pi install -l npm:@pi-rails/rulebook (pi runs npm install --prefix .pi/npm)", () =>
      user("pi", ["install", "-l", "npm:@pi-rails/rulebook"], project),
    );
    facts.projectInstall = existsSync(
      join(project, ".pi", "npm", "node_modules", "@pi-rails", "rulebook", "package.json"),
    );

    // The installed pi on the embedded model: the three stages of `pnpm demo`, with no -e and no checkout path.
    const target = installedTarget({
      bin,
      packages: settings.packages,
      npmDir,
      env: {
        ...Object.fromEntries(
          Object.keys(process.env)
            .filter((key) => /^npm_/i.test(key))
            .map((key) => [key, undefined]),
        ),
        npm_config_prefix: prefix,
        npm_config_userconfig: join(home, ".npmrc"),
        PATH: userEnv.PATH,
      },
    });
    console.log(dim(`\n  settings.packages: ${JSON.stringify(settings.packages)}\n`));
    facts.ttsr = await step("stage 1 on the installed pi: pi-ttsr + rulebook", () =>
      runTtsrStage({ root, bold, dim, target }),
    );
    facts.cacheTtl = await step("stage 2 on the installed pi: cache-ttl-view", () =>
      runCacheTtlStage({ root, bold, dim, target }),
    );
    facts.steering = await step("stage 3 on the installed pi: steering-bridge and pi-steer", () =>
      runSteeringStage({ root, bold, dim, target }),
    );

    if (hasTmux()) {
      facts.tui = await step("the TUI of the installed pi, in tmux", () => runTuiCheck({ root, target }));
      console.log(
        `  the screen shows: ${facts.tui.notice ?? "(no notice)"}; the retried answer: ${facts.tui.finalAnswerShown ? "yes" : "no"}`,
      );
    } else {
      console.log("  tmux is not installed: the TUI is not checked");
    }

    // 2b. A user who keeps stock pi 1.6 (most users): a fresh HOME and npm prefix, the published pi from npm, the
    // four extensions by `pi install npm:...` from the same registry; no patched pi anywhere on this machine's PATH.
    const stockUser = join(scratch, "stock-pi-user");
    const stockUserHome = join(stockUser, "home");
    const stockUserPrefix = join(stockUser, "npm-prefix");
    mkdirSync(stockUserHome, { recursive: true });
    mkdirSync(stockUserPrefix, { recursive: true });
    writeFileSync(
      join(stockUserHome, ".npmrc"),
      `registry=${registry.url}\nprefix=${stockUserPrefix}\ncache=${join(scratch, "user", "npm-cache")}\nfund=false\naudit=false\nupdate-notifier=false\n`,
    );
    const stockUserEnv = {
      ...userEnv,
      HOME: stockUserHome,
      PATH: `${join(stockUserPrefix, "bin")}:${dirname(process.execPath)}:${process.env.PATH}`,
    };
    const stockPiUser = (command, args, cwd = stockUserHome) => sh(command, args, { cwd, env: stockUserEnv });
    await step("stock pi: npm i -g @earendil-works/pi-coding-agent@1.6.0; pi install npm:@pi-rails/<name> x4", () => {
      stockPiUser("npm", ["i", "-g", "@earendil-works/pi-coding-agent@1.6.0", "--ignore-scripts", "--prefer-offline"]);
      for (const name of EXTENSIONS) stockPiUser("pi", ["install", `npm:@pi-rails/${name}`]);
    });
    const stockVersion = spawnSync("pi", ["--version"], { cwd: stockUserHome, env: stockUserEnv, encoding: "utf8" });
    facts.stockPi = { version: `${stockVersion.stdout}${stockVersion.stderr}`.trim() };
    facts.stockPi.patchedPresent = existsSync(join(stockUserPrefix, "lib", "node_modules", "@pi-rails", "pi"));
    const stockNpmDir = join(stockUserHome, ".pi", "agent", "npm");
    const stockSettings = JSON.parse(readFileSync(join(stockUserHome, ".pi", "agent", "settings.json"), "utf8"));
    const stockTarget = installedTarget({
      bin: join(stockUserPrefix, "bin"),
      packages: stockSettings.packages,
      npmDir: stockNpmDir,
      host: "stock",
      env: {
        ...target.env,
        npm_config_prefix: stockUserPrefix,
        npm_config_userconfig: join(stockUserHome, ".npmrc"),
        PATH: stockUserEnv.PATH,
      },
    });
    console.log(
      `  $ pi --version\n  ${facts.stockPi.version} (stock; @pi-rails/pi installed: ${facts.stockPi.patchedPresent})`,
    );
    facts.stockPi.ttsr = await step("stock pi, stage 1: pi-ttsr + rulebook", () =>
      runTtsrStage({ root, bold, dim, target: stockTarget }),
    );
    facts.stockPi.cacheTtl = await step("stock pi, stage 2: cache-ttl-view", () =>
      runCacheTtlStage({ root, bold, dim, target: stockTarget }),
    );
    facts.stockPi.steering = await step("stock pi, stage 3: steering-bridge and pi-steer", () =>
      runSteeringStage({ root, bold, dim, target: stockTarget }),
    );
    facts.stockPi.toolRule = await step("stock pi: a pi-ttsr rule on a streamed tool call", () =>
      runTtsrToolCallCheck({ root, target: stockTarget }),
    );
    console.log(`  ${JSON.stringify(facts.stockPi.toolRule)}`);
    facts.stockPi.interruptImmediate = await step(
      "stock pi: pi-steer inject --mode interrupt_immediate holds a tool batch, on every wire format",
      () => runInterruptImmediateCheck({ root, target: stockTarget }),
    );
    for (const [format, result] of Object.entries(facts.stockPi.interruptImmediate)) {
      console.log(
        `  ${format}: ${interruptImmediateHeld(result) ? "held, next request accepted" : JSON.stringify(result)}`,
      );
    }
    facts.stockPi.cacheWarming = await step(
      "stock pi: cache-ttl-view with pi's cache warming (off: a prune after the TTL; on: none while pi keeps it warm)",
      () => runCacheWarmingCheck({ root, target: stockTarget }),
    );
    console.log(
      `  warming off: pruned ${facts.stockPi.cacheWarming.warmingOff.pruned ? "yes" : "no"}; ` +
        `warming on: ${facts.stockPi.cacheWarming.warm.refreshes} refreshes by pi, pruned ${facts.stockPi.cacheWarming.warm.pruned ? "yes" : "no"}`,
    );
    if (hasTmux()) {
      facts.stockPi.tui = await step("the TUI of stock pi with pi-ttsr, in tmux", () =>
        runTuiCheck({ root, target: stockTarget }),
      );
      console.log(
        `  the screen shows: ${facts.stockPi.tui.notice ?? "(no notice)"}; the cut-off partial ${facts.stockPi.tui.partialShown ? "yes" : "no"}; ` +
          `"Operation aborted" ${facts.stockPi.tui.failureShown ? "yes" : "no"}; the retried answer ${facts.stockPi.tui.finalAnswerShown ? "yes" : "no"}`,
      );
    }

    // 3. One package released on its own, and `pi update --all` on the user's machine.
    // @pi-rails/pi is in the npm prefix; pi 1.6 keeps the extensions in its own npm folder.
    const installedVersion = (name) => {
      for (const modules of [join(prefix, "lib", "node_modules"), join(npmDir, "node_modules")]) {
        const file = join(modules, name, "package.json");
        if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")).version;
      }
      return undefined;
    };
    const before = Object.fromEntries(
      published.map(({ name }) => [name, installedVersion(name)]).filter(([, version]) => version !== undefined),
    );
    await step(`a changeset for ${INDEPENDENT} only; pnpm version-packages; commit; pnpm release`, () => {
      writeFileSync(
        join(clone, ".changeset", "independent-release.md"),
        `---\n"${INDEPENDENT}": patch\n---\n\nA fix released on its own.\n`,
      );
      sh("pnpm", ["version-packages"], { cwd: clone, env: maintainerEnv });
      git("add", "-A");
      git("commit", "-q", "-m", `Version ${INDEPENDENT}`);
      sh("pnpm", ["release"], { cwd: clone, env: releaseEnv });
    });
    facts.secondRelease = {};
    for (const { name } of published) facts.secondRelease[name] = await registry.versions(name);
    facts.independentVersion = versionOf(INDEPENDENT);
    for (const { name } of published) console.log(`  ${name}: registry has ${facts.secondRelease[name].join(", ")}`);
    // pi 1.6's bare `pi update` updates pi alone; `--all` is pi itself (the launcher's self-update), then the packages.
    facts.update = await step("pi update --all (on the user's machine)", () => user("pi", ["update", "--all"]));
    console.log(facts.update.trimEnd().replace(/^/gm, "  "));
    facts.before = before;
    facts.after = Object.fromEntries(Object.keys(before).map((name) => [name, installedVersion(name)]));
    facts.stockPiGlobal = existsSync(join(prefix, "lib", "node_modules", "@earendil-works", "pi-coding-agent"));
    for (const name of Object.keys(before)) console.log(`  ${name}: ${before[name]} → ${facts.after[name]}`);

    // A release of @pi-rails/pi itself: `pi update --self` installs it (stock pi's self-update would have
    // installed @earendil-works/pi-coding-agent instead).
    await step("a changeset for @pi-rails/pi; version; commit; release; pi update --self", () => {
      writeFileSync(join(clone, ".changeset", "pi-release.md"), `---\n"@pi-rails/pi": patch\n---\n\nA new pi-rails.\n`);
      sh("pnpm", ["version-packages"], { cwd: clone, env: maintainerEnv });
      git("add", "-A");
      git("commit", "-q", "-m", "Version @pi-rails/pi");
      sh("pnpm", ["release"], { cwd: clone, env: releaseEnv });
      facts.selfUpdate = user("pi", ["update", "--self"]);
      console.log(facts.selfUpdate.trimEnd().replace(/^/gm, "  "));
    });
    facts.selfUpdatedVersion = user("pi", ["--version"]).trim();
    facts.selfUpdatedStockPiGlobal = existsSync(
      join(prefix, "lib", "node_modules", "@earendil-works", "pi-coding-agent"),
    );
    facts.selfUpdatedExtensions = Object.fromEntries(
      Object.keys(before)
        .filter((name) => name !== "@pi-rails/pi")
        .map((name) => [name, installedVersion(name)]),
    );
    console.log(`  $ pi --version\n  ${facts.selfUpdatedVersion}`);
    return facts;
  } finally {
    await registry?.close();
    rmSync(scratch, { recursive: true, force: true });
    const total = times.reduce((sum, t) => sum + t.seconds, 0);
    console.log(
      dim(
        `\nwall time per step:\n${times.map((t) => `  ${t.seconds.toFixed(1).padStart(6)} s  ${t.name}`).join("\n")}\n  ${total.toFixed(1).padStart(6)} s  total`,
      ),
    );
  }
}

/** What the run must have shown, one line each (the demo prints them; a failed one fails the demo). */
export function installedChecks(facts) {
  const names = Object.keys(facts.firstRelease ?? {});
  const others = names.filter((name) => name !== INDEPENDENT);
  const check = (ok, text) => ({ ok: Boolean(ok), text });
  return [
    check(
      names.length >= 6 && names.every((name) => facts.firstRelease[name].join() === "0.1.0"),
      `first release: ${names.length} packages at 0.1.0 on the local registry, with changelogs and tags`,
    ),
    check(facts.changelogs && names.every((name) => facts.tags.includes(`${name}@0.1.0`)), "one git tag per package"),
    check(/^1\.6\.0 \(pi-rails 0\.1\.0/.test(facts.version ?? ""), `pi --version names both: ${facts.version}`),
    check(
      facts.ownBytes < 10 * 1024 * 1024,
      `@pi-rails/pi adds ${(facts.ownBytes / 1048576).toFixed(2)} MB to stock pi's dependencies`,
    ),
    check(facts.piAiCopies === 1 && facts.piTuiCopies === 1, "one copy of pi-ai and one of pi-tui"),
    check(
      facts.refusal?.code === 1 && /refusing to (start|run) pi[\s\S]*cli-runtime\.js/.test(facts.refusal.stderr),
      "an edited bundle file: pi refuses to run, naming it",
    ),
    check(
      facts.clash?.code !== 0 &&
        /EEXIST/.test(facts.clash.output) &&
        facts.sideBySide?.stock === "1.6.0" &&
        facts.sideBySide?.piRails.startsWith("1.6.0 (pi-rails"),
      "stock pi installed: EEXIST; keeping both gives pi (stock) and pi-rails",
    ),
    check(facts.replaced?.startsWith("1.6.0 (pi-rails"), "stock pi installed: replacing it gives the patched pi"),
    check(
      EXTENSIONS.every((name) => facts.list?.includes(`npm:@pi-rails/${name}`)),
      "pi list shows the four extensions",
    ),
    check(
      facts.listedFromPrefix,
      "pi list: each extension is the one pi installed in its agent dir, none from the checkout",
    ),
    check(facts.projectInstall, "pi install -l (npm install --prefix) installed into the project"),
    check(
      facts.ttsr?.aborted && facts.ttsr?.injection?.includes("rule_violation"),
      "interrupt and retry: the stream was cut, the rule injected",
    ),
    check(facts.ttsr?.alwaysApplyRuleSent, "a rulebook rule in the prompt"),
    check(
      facts.ttsr?.piExitCode === 0 && !facts.ttsr?.partialLeaked,
      "the retried answer, without the dropped partial",
    ),
    check(
      facts.steering?.cancelled && facts.steering?.processGone && facts.steering?.modelToldCancelled,
      "pi-steer cancel of a running tool",
    ),
    check(
      facts.cacheTtl?.fileGone && facts.cacheTtl?.noticeSeen && facts.cacheTtl?.originalKept,
      "a prune after the TTL",
    ),
    ...(facts.tui
      ? [
          check(
            facts.tui.notice && facts.tui.finalAnswerShown && !facts.tui.partialShown && !facts.tui.failureShown,
            "the TUI: the interrupt notice and only the retried answer",
          ),
        ]
      : []),
    check(
      facts.stockPi?.version === "1.6.0" && facts.stockPi.patchedPresent === false,
      "stock pi 1.6.0 from npm, the four extensions from `pi install`, no patched pi",
    ),
    check(
      facts.stockPi?.ttsr?.aborted &&
        facts.stockPi.ttsr.injection?.includes("rule_violation") &&
        !facts.stockPi.ttsr.partialLeaked &&
        facts.stockPi.ttsr.piExitCode === 0,
      "stock pi: a prose rule interrupts the stream; the retry carries the rule, not the partial",
    ),
    check(
      facts.stockPi?.toolRule?.code === 0 &&
        !facts.stockPi.toolRule.toolRan &&
        facts.stockPi.toolRule.ruleSent &&
        !facts.stockPi.toolRule.partialSent,
      "stock pi: a tool rule interrupts the streamed call before it runs; the retry carries the rule, not the call",
    ),
    check(
      facts.stockPi?.steering?.cancelled &&
        facts.stockPi.steering.processGone &&
        facts.stockPi.steering.modelToldCancelled,
      "stock pi: pi-steer cancel of a running tool",
    ),
    check(
      Object.values(facts.stockPi?.interruptImmediate ?? {}).length === 4 &&
        Object.values(facts.stockPi.interruptImmediate).every(interruptImmediateHeld),
      "stock pi: interrupt_immediate holds the pending batch; the next request is valid on all four wire formats",
    ),
    check(
      facts.stockPi?.cacheTtl?.fileGone && facts.stockPi.cacheTtl.noticeSeen && facts.stockPi.cacheTtl.originalKept,
      "stock pi: a prune after the TTL",
    ),
    check(
      facts.stockPi?.cacheWarming && cacheWarmingHeld(facts.stockPi.cacheWarming),
      "stock pi: with cache warming off a prune after the TTL; none while pi keeps the cache warm",
    ),
    ...(facts.stockPi?.tui
      ? [
          check(
            facts.stockPi.tui.notice &&
              facts.stockPi.tui.finalAnswerShown &&
              !facts.stockPi.tui.partialShown &&
              !facts.stockPi.tui.failureShown,
            'stock pi\'s TUI: the interrupt notice and the retried answer; no cut-off text, no "Operation aborted"',
          ),
        ]
      : []),
    check(
      facts.secondRelease?.[INDEPENDENT]?.join() === "0.1.0,0.1.1" &&
        others.every((name) => facts.secondRelease[name].join() === "0.1.0"),
      `independent release: only ${INDEPENDENT} got a new version (0.1.1)`,
    ),
    check(
      facts.after?.[INDEPENDENT] === "0.1.1" &&
        Object.keys(facts.before ?? {})
          .filter((name) => name !== INDEPENDENT)
          .every((name) => facts.after[name] === facts.before[name]),
      `pi update --all brought exactly that update`,
    ),
    check(
      facts.after?.["@pi-rails/pi"] === "0.1.0" && !facts.stockPiGlobal,
      "pi update --all kept the user on @pi-rails/pi",
    ),
    check(
      /^1\.6\.0 \(pi-rails 0\.1\.1/.test(facts.selfUpdatedVersion ?? "") &&
        !facts.selfUpdatedStockPiGlobal &&
        Object.entries(facts.selfUpdatedExtensions ?? {}).every(([name, version]) => version === facts.after[name]),
      "pi update --self installed @pi-rails/pi 0.1.1 (not stock pi) and left the extensions alone",
    ),
  ];
}
