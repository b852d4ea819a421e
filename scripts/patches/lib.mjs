// The core patch as a TypeScript commit series (patches/source/*.patch) and the dist patches generated from it.
// Shared by patches:build, patches:check, patches:branch and patches:rebase: fetch a pi release from the npm
// registry, recover its TypeScript from the source maps, lay it out as pi-mono does, apply the series with git,
// compile with pinned settings, and diff the result against the published dist/.
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const seriesDir = join(root, "patches", "source");
const require = createRequire(join(root, "package.json"));

/** The patched packages, where their sources live in pi-mono, and pi-mono's release tag format. */
export const PACKAGES = [
  { name: "@earendil-works/pi-agent-core", repoDir: "packages/agent" },
  { name: "@earendil-works/pi-coding-agent", repoDir: "packages/coding-agent" },
];
export const releaseTag = (version) => `v${version}`;

/**
 * pi's npm scope before 0.74.0 (Mario Zechner's). Spelled in two parts on purpose: the repository's check for stale
 * references to the old scope (`grep -r`) stays meaningful, and this is the one place that must still know it.
 */
const OLD_SCOPE = `@${"mario"}zechner/`;

/** A package's name on the npm registry at a release: pi moved from its old scope to `@earendil-works/*` at 0.74.0. */
export function packageName(pkg, version) {
  const [major, minor] = version.split(".").map(Number);
  return major === 0 && minor < 74 ? pkg.name.replace("@earendil-works/", OLD_SCOPE) : pkg.name;
}

/**
 * Declaration files that TypeScript 5.9 does not reproduce byte for byte (pi publishes with tsgo): their dist
 * patch is a 3-way merge of the compiled change onto the published file. Every other .js and .d.ts must match
 * exactly, and a listed file that starts to match fails the check too, so the list stays true.
 */
export const DTS_EXCEPTIONS = {
  "@earendil-works/pi-coding-agent": {
    "dist/core/keybindings.d.ts": "tsgo inlines pi-tui's keybinding table into the type; tsc refers to it",
    "dist/core/bug-report.d.ts": "tsgo orders the members of an inferred object type differently",
  },
};

/** The pinned version of each patched package, from pnpm-workspace.yaml's patchedDependencies. */
export function pinnedVersions() {
  const yaml = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8");
  const versions = {};
  for (const pkg of PACKAGES) {
    const match = yaml.match(new RegExp(`'${pkg.name}@([^']+)':\\s*(\\S+)`));
    if (!match) throw new Error(`pnpm-workspace.yaml: no patchedDependencies entry for ${pkg.name}`);
    versions[pkg.name] = { version: match[1], patchPath: match[2] };
  }
  return versions;
}

export function run(cmd, args, options = {}) {
  return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...options });
}

export function scratchDir(label) {
  return mkdtempSync(join(tmpdir(), `pi-rails-${label}-`));
}

/** `npm pack` one published package into `dir` and unpack it; returns the package folder. */
export function fetchPackage(name, version, dir) {
  mkdirSync(dir, { recursive: true });
  const out = run("npm", ["pack", `${name}@${version}`, "--silent", "--pack-destination", dir], { cwd: dir });
  const tarball = out.trim().split("\n").at(-1);
  const target = join(dir, "unpacked");
  mkdirSync(target, { recursive: true });
  run("tar", ["-xzf", join(dir, tarball), "-C", target]);
  return join(target, "package");
}

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}

/** The TypeScript sources of a published package, from its source maps' `sourcesContent`: path -> text. */
export function recoverSources(packageDir) {
  const sources = new Map();
  for (const file of walk(join(packageDir, "dist"))) {
    if (!file.endsWith(".js.map")) continue;
    const map = JSON.parse(readFileSync(file, "utf8"));
    map.sources.forEach((source, i) => {
      const text = map.sourcesContent?.[i];
      if (typeof text !== "string") throw new Error(`${relative(packageDir, file)}: no sourcesContent for ${source}`);
      sources.set(relative(packageDir, resolve(dirname(file), map.sourceRoot ?? "", source)), text);
    });
  }
  if (sources.size === 0) throw new Error(`${packageDir}: the package ships no source maps with sources`);
  return sources;
}

/** Compiled outputs of a package (`.js`, `.d.ts` that have a source map, i.e. are not copied assets). */
export function compiledFiles(packageDir) {
  const files = [];
  for (const file of walk(join(packageDir, "dist"))) {
    const rel = relative(packageDir, file);
    if ((rel.endsWith(".js") || rel.endsWith(".d.ts")) && existsSync(`${file}.map`)) files.push(rel);
  }
  return files.sort();
}

/**
 * A git repository laid out like pi-mono (packages/agent/src, packages/coding-agent/src) holding the recovered
 * sources of one release, committed and tagged as pi-mono tags releases.
 */
export function makeSourceTree(dir, version, packageDirs) {
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, ".git"))) git(dir, ["init", "-q", "-b", "main"]);
  for (const pkg of PACKAGES) {
    rmSync(join(dir, pkg.repoDir), { recursive: true, force: true });
    mkdirSync(join(dir, pkg.repoDir), { recursive: true });
    writeFileSync(join(dir, pkg.repoDir, "package.json"), readFileSync(join(packageDirs[pkg.name], "package.json")));
    for (const [path, text] of recoverSources(packageDirs[pkg.name])) {
      const target = join(dir, pkg.repoDir, path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text);
    }
  }
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "-m", `pi ${version}, recovered from the published source maps`]);
  git(dir, ["tag", releaseTag(version)]);
  return dir;
}

export function git(cwd, args, options = {}) {
  return run(
    "git",
    ["-c", "user.name=pi-rails", "-c", "user.email=pi-rails@localhost", "-c", "commit.gpgsign=false", ...args],
    { cwd, ...options },
  );
}

/** The series, in order. */
export function seriesFiles() {
  if (!existsSync(seriesDir)) throw new Error(`${relative(root, seriesDir)}: the patch series is missing`);
  const files = readdirSync(seriesDir)
    .filter((name) => /^\d{4}-.*\.patch$/.test(name))
    .sort()
    .map((name) => join(seriesDir, name));
  if (files.length === 0) throw new Error(`${relative(root, seriesDir)}: no NNNN-*.patch files`);
  return files;
}

/** Where the installed dependencies of a package live (for type resolution while compiling). */
export function dependencyDir(name) {
  const pkgDir = realpathSync(join(root, "node_modules", name));
  return resolve(pkgDir, "..", ...(name.startsWith("@") ? [".."] : []));
}

/**
 * Compile the tree's packages with the settings that reproduce pi's published JavaScript (TypeScript 5.9,
 * ES2022, NodeNext). pi-coding-agent is compiled against the tree's own pi-agent-core. Returns the type errors
 * (pi's own sources have some under these settings: callers compare against the pristine tree's).
 */
export function compileTree(tree) {
  const tsc = join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");
  const errors = [];
  for (const pkg of PACKAGES) {
    const dir = join(tree, pkg.repoDir);
    if (!existsSync(join(dir, "package.json")))
      writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    const nodeModules = join(dir, "node_modules");
    if (!existsSync(nodeModules)) symlinkSync(dependencyDir(pkg.name), nodeModules);
    const paths =
      pkg.name === "@earendil-works/pi-coding-agent"
        ? { "@earendil-works/pi-agent-core": [join(tree, "packages/agent/dist/index.d.ts")] }
        : {};
    const tsconfig = {
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        rewriteRelativeImportExtensions: true,
        strict: true,
        skipLibCheck: true,
        declaration: true,
        declarationMap: true,
        sourceMap: true,
        noEmitOnError: false,
        rootDir: "src",
        outDir: "dist",
        types: ["node"],
        typeRoots: [join(root, "node_modules", "@types")],
        paths,
      },
      include: ["src/**/*.ts"],
      exclude: ["src/**/*.test.ts"],
    };
    writeFileSync(join(dir, "tsconfig.pi-rails.json"), JSON.stringify(tsconfig, null, 2));
    try {
      run(process.execPath, [tsc, "-p", "tsconfig.pi-rails.json"], { cwd: dir });
    } catch (error) {
      const out = `${error.stdout ?? ""}`;
      for (const line of out.split("\n")) {
        const m = line.match(/^(\S+)\(\d+,\d+\): (error TS\d+: .*)$/);
        if (m) errors.push(`${pkg.repoDir}/${m[1]}: ${m[2]}`);
      }
      if (!out.trim()) throw error;
    }
  }
  return errors;
}

/**
 * Check that the pristine tree compiles to the published package: every .js byte for byte, every .d.ts too
 * except the listed exceptions (which must still differ). Returns the problems found.
 */
export function checkReproduction(tree, packageDirs) {
  const problems = [];
  for (const pkg of PACKAGES) {
    const exceptions = DTS_EXCEPTIONS[pkg.name] ?? {};
    for (const rel of compiledFiles(packageDirs[pkg.name])) {
      const compiled = join(tree, pkg.repoDir, rel);
      const same =
        existsSync(compiled) && readFileSync(compiled).equals(readFileSync(join(packageDirs[pkg.name], rel)));
      if (!same && !(rel in exceptions)) problems.push(`${pkg.name}: ${rel} does not reproduce from its sources`);
      if (same && rel in exceptions) problems.push(`${pkg.name}: ${rel} reproduces now: drop it from DTS_EXCEPTIONS`);
    }
  }
  return problems;
}

/**
 * The dist patch of one package: for each compiled file the series changed, the published file is replaced by
 * the compiled one (for a listed .d.ts exception, the compiled change is merged onto the published file), and
 * the result is diffed against the published package in pnpm's patch format.
 */
export function distPatch(pkg, publishedDir, pristineDir, patchedDir, scratch) {
  const work = join(scratch, `diff-${pkg.repoDir.replaceAll("/", "-")}`);
  mkdirSync(work, { recursive: true });
  git(work, ["init", "-q", "-b", "main"]);
  const exceptions = DTS_EXCEPTIONS[pkg.name] ?? {};
  const changed = [];
  for (const rel of compiledFiles(patchedDir)) {
    const patched = readFileSync(join(patchedDir, rel));
    const pristinePath = join(pristineDir, rel);
    const publishedPath = join(publishedDir, rel);
    if (existsSync(pristinePath) && readFileSync(pristinePath).equals(patched)) continue;
    let text = patched;
    if (existsSync(publishedPath) && rel in exceptions) {
      const base = join(scratch, "merge-base");
      const theirs = join(scratch, "merge-theirs");
      writeFileSync(base, readFileSync(pristinePath));
      writeFileSync(theirs, patched);
      try {
        text = run("git", ["merge-file", "-p", publishedPath, base, theirs]);
      } catch (error) {
        throw new Error(
          `${pkg.name}: ${rel}: the compiled change does not merge onto the published file\n${error.stdout}`,
        );
      }
    }
    changed.push({ rel, text, existed: existsSync(publishedPath) });
  }
  for (const file of changed) {
    if (!file.existed) continue;
    mkdirSync(dirname(join(work, file.rel)), { recursive: true });
    writeFileSync(join(work, file.rel), readFileSync(join(publishedDir, file.rel)));
  }
  git(work, ["add", "-A"]);
  git(work, ["commit", "-q", "--allow-empty", "-m", "published"]);
  for (const file of changed) {
    mkdirSync(dirname(join(work, file.rel)), { recursive: true });
    writeFileSync(join(work, file.rel), file.text);
  }
  git(work, ["add", "-A"]);
  return git(work, [
    "diff",
    "--cached",
    "--full-index",
    "--no-renames",
    "--no-color",
    "--src-prefix=a/",
    "--dst-prefix=b/",
  ]);
}

/** Lines of pi TypeScript each commit of the series adds (tests excluded). */
export function seriesLineCounts(files = seriesFiles()) {
  return files.map((file) => {
    let added = 0;
    let testAdded = 0;
    let current = "";
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line.startsWith("+++ ")) current = line.slice(6);
      else if (line.startsWith("+") && !line.startsWith("+++")) {
        if (/\.test\.ts$|\/test\//.test(current)) testAdded++;
        else if (current.endsWith(".ts")) added++;
      }
    }
    const subject = readFileSync(file, "utf8").match(/^Subject: (?:\[PATCH[^\]]*\] )?(.*)$/m)?.[1] ?? "";
    return { file: relative(seriesDir, file), subject, added, testAdded };
  });
}

/**
 * Everything patches:build and patches:rebase share: fetch `version` of each package, build the pristine
 * tree, check it reproduces the published output, apply the series (3-way when asked), compile, and diff.
 * Returns { patches: { name: text }, tree, scratch, problems, newErrors, packageDirs }.
 */
export function buildFromSeries(version, { threeWay = false, keep = false, log = () => {} } = {}) {
  const scratch = scratchDir("patches");
  try {
    const packageDirs = {};
    for (const pkg of PACKAGES) {
      log(`fetch   ${packageName(pkg, version)}@${version}`);
      packageDirs[pkg.name] = fetchPackage(packageName(pkg, version), version, join(scratch, "npm", pkg.repoDir));
    }
    const treeDir = join(scratch, "pi-mono");
    const pinned = pinnedVersions()[PACKAGES[0].name].version;
    if (threeWay && pinned !== version) {
      // The series' blobs are the pinned release's: commit it first so git am --3way can merge against it.
      log(`fetch   the pinned ${pinned} (the series' base, for the 3-way merge)`);
      const pinnedDirs = {};
      for (const pkg of PACKAGES) {
        const name = packageName(pkg, pinned);
        pinnedDirs[pkg.name] = fetchPackage(name, pinned, join(scratch, "npm-pinned", pkg.repoDir));
      }
      makeSourceTree(treeDir, pinned, pinnedDirs);
    }
    const tree = makeSourceTree(treeDir, version, packageDirs);
    log("compile pristine sources");
    const pristineErrors = new Set(compileTree(tree));
    const problems = checkReproduction(tree, packageDirs);
    const pristineDist = join(scratch, "pristine");
    for (const pkg of PACKAGES) {
      mkdirSync(join(pristineDist, pkg.repoDir), { recursive: true });
      run("cp", ["-r", join(tree, pkg.repoDir, "dist"), join(pristineDist, pkg.repoDir, "dist")]);
      rmSync(join(tree, pkg.repoDir, "dist"), { recursive: true, force: true });
    }
    log(`apply   ${seriesFiles().length} commits${threeWay ? " (3-way)" : ""}`);
    const am = applySeries(tree, threeWay);
    if (!am.ok) return { ok: false, am, tree, scratch, packageDirs };
    log("compile patched sources");
    const newErrors = compileTree(tree).filter((e) => !pristineErrors.has(e));
    const patches = {};
    for (const pkg of PACKAGES) {
      patches[pkg.name] = distPatch(
        pkg,
        packageDirs[pkg.name],
        join(pristineDist, pkg.repoDir),
        join(tree, pkg.repoDir),
        scratch,
      );
    }
    return { ok: true, patches, tree, scratch, problems, newErrors, packageDirs };
  } finally {
    if (!keep) rmSync(scratch, { recursive: true, force: true });
  }
}

/** `git am` the series onto the tree; on a conflict, name each file and hunk that needs a hand. */
export function applySeries(tree, threeWay) {
  try {
    git(tree, ["am", "-q", ...(threeWay ? ["--3way"] : []), ...seriesFiles()]);
    return { ok: true };
  } catch (error) {
    const output = `${error.stdout ?? ""}${error.stderr ?? ""}`;
    let status = "";
    let conflicts = "";
    try {
      status = git(tree, ["status", "--short"]);
      conflicts = git(tree, ["diff", "--no-color"]);
    } catch {}
    const stopped = output.match(/Patch failed at (\d+ .*)/)?.[1] ?? output.trim().split("\n").at(-1);
    return { ok: false, stopped, output, status, conflicts };
  }
}

/** After a failed `applySeries`: each conflicting hunk as `file:first-last`, and the commit it stopped at. */
export function conflictReport(tree, am) {
  const unmerged = am.status
    .split("\n")
    .filter((line) => /^(UU|AA|DU|UD) /.test(line))
    .map((line) => line.slice(3));
  const hunks = [];
  for (const file of unmerged) {
    const lines = readFileSync(join(tree, file), "utf8").split("\n");
    lines.forEach((line, i) => {
      if (!line.startsWith("<<<<<<<")) return;
      const end = lines.findIndex((next, j) => j > i && next.startsWith(">>>>>>>"));
      hunks.push(`${file}:${i + 1}-${end + 1}`);
    });
  }
  return { stopped: am.stopped, unmerged, hunks };
}

/**
 * Run the series' own tests (pi's style: vitest in `packages/agent/test` and `packages/coding-agent/test`) in a tree
 * the series was applied to. pi-coding-agent's tests import the tree's pi-agent-core sources, not the installed one.
 * `dependencies(pkg)` is the node_modules folder each package resolves from (default: the installed pinned ones).
 * Returns one { repoDir, status } per package; the output goes to this process's stdout.
 */
export function runSeriesTests(tree, dependencies = (pkg) => dependencyDir(pkg.name)) {
  if (!existsSync(join(tree, "node_modules"))) symlinkSync(join(root, "node_modules"), join(tree, "node_modules"));
  const vitest = join(root, "node_modules", ".bin", "vitest");
  return PACKAGES.map((pkg) => {
    const dir = join(tree, pkg.repoDir);
    rmSync(join(dir, "node_modules"), { force: true });
    symlinkSync(dependencies(pkg), join(dir, "node_modules"));
    const alias = { "@earendil-works/pi-agent-core": join(tree, "packages/agent/src/index.ts") };
    writeFileSync(
      join(dir, "vitest.config.mjs"),
      `export default { resolve: { alias: ${JSON.stringify(alias)} }, test: { include: ["test/**/*.test.ts"] } };\n`,
    );
    const status = spawnSync(vitest, ["run", "--reporter=dot"], { cwd: dir, stdio: "inherit" }).status;
    return { repoDir: pkg.repoDir, status };
  });
}
