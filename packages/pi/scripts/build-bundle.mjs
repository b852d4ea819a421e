#!/usr/bin/env node
// Build step (`pnpm build`): pi's `pi` command, rebuilt as a bundle from the UNBUNDLED dist of the workspace's
// @earendil-works/pi-coding-agent, which pnpm has patched in place from patches/*.patch (patchedDependencies).
// Upstream's own bundle (dist/bundle) inlines pi-agent-core's loop and AgentSession, so the patch never reaches
// it; this rebuilds one the way pi builds its own (see the package README): chunks with code splitting,
// PI_BUNDLED_NODE defined (extensions get the bundle's own modules), jiti loaded lazily from node_modules, the
// codemode and image-resize workers as self-contained entries beside the chunks, the lazily imported OAuth flows
// and Bedrock provider as entries in the same folder. A few exact edits tie it to the launcher (GLUE below).
//
// Output: dist/bundle/*.js and dist/bundle/manifest.json, which records the sha256 and size of every file of the
// bundle and of every upstream file it may load at run time (the packages left outside it), the upstream version,
// and the patch files it was built from. The launcher refuses any file that does not match.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";
import { parse } from "yaml";

const packageRoot = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = join(packageRoot, "..", "..");
const bundleDir = join(packageRoot, "dist", "bundle");
// Written next to it, then swapped in with two renames: a pi started during a build (other packages' tests run
// this launcher) sees the old bundle or the new one, never a half-written one.
const out = join(packageRoot, "dist", `.bundle-${process.pid}`);
process.on("exit", () => rmSync(out, { recursive: true, force: true }));
const PI = "@earendil-works/pi-coding-agent";
const HOST_MODULE = "\0pi-rails-host";
const JITI_MODULE = "\0pi-rails-lazy-jiti";
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

function fail(message) {
  console.error(`build-bundle: ${message}`);
  process.exit(1);
}

/** Where Node finds `name` from `fromDir` (real path), or undefined. */
function findPackageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    if (basename(dir) !== "node_modules") {
      const candidate = join(dir, "node_modules", name);
      if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    }
    if (dirname(dir) === dir) return undefined;
  }
}
const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

const ownPackage = readJson(join(packageRoot, "package.json"));
const piDir = findPackageDir(PI, packageRoot);
if (!piDir) fail(`${PI} is not installed next to @pi-rails/pi (run pnpm install)`);
const piPackage = readJson(join(piDir, "package.json"));
if (piPackage.version !== ownPackage.dependencies[PI]) {
  fail(`${PI}@${piPackage.version} is installed, package.json pins ${ownPackage.dependencies[PI]} (run pnpm install)`);
}

// The packages the bundle leaves outside and loads from node_modules at run time. Each is a dependency of this
// package at exactly the version pi pins, so npm installs one copy for both and the manifest can name its bytes.
// - jiti: pi loads extensions with it (lazily, like pi's own bundle; its Babel build is 1.5 MB);
// - @silvia-odwyer/photon-node: image processing, a wasm file it reads next to itself;
// - quickjs-wasi: codemode's wasm VM (its JavaScript is bundled, the wasm file is read by path);
// - @earendil-works/pi-tui: its prebuilt clipboard helpers (`native/**.node`), found through the package.
const RUNTIME_PACKAGES = ["jiti", "@silvia-odwyer/photon-node", "quickjs-wasi", "@earendil-works/pi-tui"];
// Optional native accelerators and optional peers: their callers fall back when they are absent (as in stock pi).
const OPTIONAL_EXTERNALS = ["bufferutil", "utf-8-validate", "supports-color", "encoding", "kerberos"];
// Left outside the bundle, as pi's own leaves them: photon (it reads its wasm next to itself) and jiti (required
// lazily, see JITI_SOURCE). quickjs-wasi's and pi-tui's JavaScript is bundled; only their wasm and native files are
// read from the installed packages.
const EXTERNAL = new Set(["jiti", "@silvia-odwyer/photon-node", ...OPTIONAL_EXTERNALS, "@aws-sdk/signature-v4-crt"]);
const packageOf = (specifier) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

for (const name of RUNTIME_PACKAGES) {
  const pinned = name === "@earendil-works/pi-tui" ? piPackage.version : piPackage.dependencies[name];
  if (ownPackage.dependencies[name] !== pinned) {
    fail(
      `package.json must depend on ${name}@${pinned} (pi ${piPackage.version} pins it), not ${ownPackage.dependencies[name]}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The patch: which patch files pnpm applied, and proof that the dist we bundle is patched with them.
// ---------------------------------------------------------------------------------------------------------------
const workspace = parse(readFileSync(join(repoRoot, "pnpm-workspace.yaml"), "utf8"));
const patchSpecs = Object.entries(workspace.patchedDependencies ?? {})
  .map(([spec, patch]) => {
    const at = spec.lastIndexOf("@");
    return { name: spec.slice(0, at), version: spec.slice(at + 1), patch: join(repoRoot, patch) };
  })
  .filter((spec) => spec.name.startsWith("@earendil-works/pi-"));
for (const spec of patchSpecs) {
  if (!existsSync(spec.patch))
    fail(`pnpm-workspace.yaml patches ${spec.name}@${spec.version} with ${spec.patch}, which does not exist`);
}

/** Fails unless `dir` holds `spec`'s patch applied (reverse-applying it to copies of the files it touches works). */
function checkPatched(spec, dir) {
  const patchText = readFileSync(spec.patch, "utf8");
  const touched = [...patchText.matchAll(/^diff --git a\/(\S+) b\/\S+$/gm)].map((match) => match[1]);
  const scratch = mkdtempSync(join(tmpdir(), "pi-rails-patched-"));
  try {
    for (const path of touched) {
      if (!existsSync(join(dir, path)))
        fail(`${spec.name}/${path} is missing in ${dir}: node_modules is not patched (pnpm install)`);
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      copyFileSync(join(dir, path), join(scratch, path));
    }
    // Outside any repository (a scratch folder under a checkout would make git skip every path silently).
    execFileSync("git", ["apply", "-R", "--check", spec.patch], {
      cwd: scratch,
      stdio: "pipe",
      env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(scratch), GIT_DIR: join(scratch, ".no-git") },
    });
  } catch (error) {
    fail(
      `${basename(spec.patch)} is not applied to ${dir}: node_modules is out of step with patches/ (run pnpm install)\n` +
        `${error.stderr?.toString() ?? error.message}`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// GLUE: the only edits to pi's code besides the patch, exact strings in exact files (the build fails when one does
// not match once). Each calls the launcher's host object (src/host.ts), so the bundle runs only under the launcher.
// ---------------------------------------------------------------------------------------------------------------
const GLUE = {
  [`${PI}/dist/config.js`]: [
    // pi finds package.json (name, version), docs, themes and templates from its own file; the bundle lives in
    // @pi-rails/pi, so it is told where upstream pi is (its real folder, checked by the launcher).
    ["return findNodePackageDir(__dirname);", "return findNodePackageDir(__piRailsHost().upstreamDistDir);"],
    // codemode's wasm VM is read by path: checked against the manifest when pi resolves it.
    [
      'quickJSWasmPath ??= createRequire(import.meta.url).resolve("quickjs-wasi/quickjs.wasm");',
      'quickJSWasmPath ??= __piRailsHost().verifiedFile(createRequire(import.meta.url).resolve("quickjs-wasi/quickjs.wasm"));',
    ],
    // The codemode worker is read into a data: URL: the bytes read are the bytes checked.
    ['readFileSync(specifier).toString("base64")', '__piRailsHost().readVerified(specifier).toString("base64")'],
  ],
  [`${PI}/dist/utils/image-resize.js`]: [
    // A worker thread does not run the launcher's module hooks: its file and the packages it loads are checked
    // before it starts.
    [
      'const workerUrl = new URL(isTypeScriptRuntime ? "./image-resize-worker.ts" : "./image-resize-worker.js", import.meta.url);',
      'const workerUrl = __piRailsHost().verifiedWorker(new URL(isTypeScriptRuntime ? "./image-resize-worker.ts" : "./image-resize-worker.js", import.meta.url));',
    ],
  ],
  [`${PI}/dist/main.js`]: [
    // `pi --version`, decided by pi's own argument parser: upstream's version, then the patch.
    ["console.log(VERSION);", "console.log(__piRailsHost().versionLine(VERSION));"],
  ],
  [`${PI}/dist/package-manager-cli.js`]: [
    // Whatever arguments make pi update itself, the launcher updates @pi-rails/pi instead: stock pi's
    // self-update would install @earendil-works/pi-coding-agent and take the user off the patch.
    [
      "if (updateTargetIncludesSelf(target)) {",
      "if (updateTargetIncludesSelf(target)) {\n" +
        "                    process.exitCode = await __piRailsHost().selfUpdate({ force: options.force === true });\n" +
        "                    return true;",
    ],
  ],
  [`${PI}/dist/utils/version-check.js`]: [
    // Stock pi's start-up notice names the stock package; `pi update` is the way here.
    ["if (process.env.PI_SKIP_VERSION_CHECK)\n        return undefined;", "return undefined;"],
  ],
};
const glueKey = (id) => {
  const real = id.split(sep).join("/");
  const at = real.lastIndexOf(`/${PI}/`);
  return at === -1 ? undefined : real.slice(at + 1);
};
const glued = new Set();

const HOST_SOURCE = `
export function piRailsHost() {
  const host = globalThis[Symbol.for("@pi-rails/pi.host")];
  if (!host) throw new Error("pi-rails: this bundle runs only through the @pi-rails/pi launcher (bin/pi.mjs)");
  return host;
}
`;
// pi's own bundle does the same: jiti (and its 1.5 MB Babel build) is required when the first extension loads.
const JITI_SOURCE = `
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
let createJitiImpl;
export function createJiti(...args) {
  createJitiImpl ??= require("jiti").createJiti;
  return createJitiImpl(...args);
}
export default createJiti;
`;

/** Every module id the build read, for the patch check and the report. */
const inputs = new Set();
const plugin = {
  name: "pi-rails-bundle",
  resolveId(source) {
    if (source === "pi-rails:host") return HOST_MODULE;
    if (source === "jiti" || source === "jiti/static") return JITI_MODULE;
    return undefined;
  },
  load(id) {
    if (id === HOST_MODULE) return HOST_SOURCE;
    if (id === JITI_MODULE) return JITI_SOURCE;
    return undefined;
  },
  transform(code, id) {
    inputs.add(id);
    const key = glueKey(id);
    const edits = key && GLUE[key];
    if (!edits) return undefined;
    let result = code;
    for (const [from, to] of edits) {
      const count = result.split(from).length - 1;
      if (count !== 1) fail(`glue for ${key}: expected ${JSON.stringify(from)} once, found it ${count} times`);
      result = result.replace(from, () => to);
    }
    glued.add(key);
    return { code: `import { piRailsHost as __piRailsHost } from "pi-rails:host";\n${result}`, map: null };
  },
};

// jiti and jiti/static are the plugin's (the lazy module above), never external: left external, pi's
// `import("jiti/static")` loaded jiti's static entry, which imports its 1.5 MB Babel build at once (about 0.5 s of
// CPU at every start with an extension: Babel's evaluation plus Node's CJS lexer over it) although an extension
// built as ES modules is imported natively and never transformed.
const external = (id) => isBuiltin(id) || (!id.startsWith("jiti") && EXTERNAL.has(packageOf(id)));
const commonInput = {
  platform: "node",
  external,
  plugins: [plugin],
  transform: { define: { PI_BUNDLED_NODE: "true" } },
  logLevel: "warn",
  onLog(level, log, handler) {
    // Circular chunk notices and eval warnings of bundled third-party code are upstream's business.
    if (log.code === "CIRCULAR_DEPENDENCY" || log.code === "EVAL") return;
    handler(level, log);
  },
};
const commonOutput = { dir: out, format: "esm", minify: true, comments: false, sourcemap: false };

const piAi = findPackageDir("@earendil-works/pi-ai", piDir);
const codemode = findPackageDir("@earendil-works/pi-codemode", piDir);
if (!piAi || !codemode) fail(`${PI} lacks its pi-ai or pi-codemode dependency (run pnpm install)`);
// Imported through variable specifiers relative to the chunk that holds pi-ai's loaders, so entries here.
const lazyEntries = {
  anthropic: join(piAi, "dist/auth/oauth/anthropic.js"),
  "github-copilot": join(piAi, "dist/auth/oauth/github-copilot.js"),
  "kimi-coding": join(piAi, "dist/auth/oauth/kimi-coding.js"),
  meta: join(piAi, "dist/auth/oauth/meta.js"),
  "openai-chatgpt": join(piAi, "dist/auth/oauth/openai-chatgpt.js"),
  "openai-codex": join(piAi, "dist/auth/oauth/openai-codex.js"),
  openrouter: join(piAi, "dist/auth/oauth/openrouter.js"),
  radius: join(piAi, "dist/auth/oauth/radius.js"),
  xai: join(piAi, "dist/auth/oauth/xai.js"),
  "bedrock-converse-stream": join(piAi, "dist/api/bedrock-converse-stream.js"),
};
// Each loader's list of names must be the list above (a new provider upstream would otherwise be missing).
const loaderNames = (file) =>
  [...readFileSync(file, "utf8").matchAll(/import(?:OAuthModule|NodeOnlyApi)\("\.\/([\w-]+)\.ts"\)/g)].map((m) => m[1]);
const lazyNames = [
  ...loaderNames(join(piAi, "dist/auth/oauth/load.js")),
  ...loaderNames(join(piAi, "dist/api/bedrock-converse-stream.lazy.js")),
].sort();
if (lazyNames.join() !== Object.keys(lazyEntries).sort().join()) {
  fail(`pi-ai's lazy imports are ${lazyNames.join(", ")}; the build knows ${Object.keys(lazyEntries).join(", ")}`);
}
for (const path of Object.values(lazyEntries)) if (!existsSync(path)) fail(`${path} is missing`);

const started = Date.now();
rmSync(out, { recursive: true, force: true });
// pi's CLI, split into chunks where pi imports lazily.
const main = await rolldown({ ...commonInput, input: { "cli-runtime": join(piDir, "dist/cli.js") } });
const mainOutput = await main.write({
  ...commonOutput,
  entryFileNames: "[name].js",
  chunkFileNames: "[name]-[hash].js",
});
await main.close();
// The lazily imported OAuth flows and Bedrock provider in a build of their own, as pi's does: with them in the
// main build, every combination of entries that shares a module became a chunk of its own, and `pi --version`
// loaded 56 files where pi's bundle loads 23.
const lazy = await rolldown({ ...commonInput, input: lazyEntries });
const lazyOutput = await lazy.write({
  ...commonOutput,
  entryFileNames: "[name].js",
  chunkFileNames: "lazy-[name]-[hash].js",
});
await lazy.close();
// Workers run in their own threads (no module hooks there): one self-contained file each, no chunks.
const workers = {
  "image-resize-worker": join(piDir, "dist/utils/image-resize-worker.js"),
  "codemode-worker": join(piDir, "dist/extensions/codemode/worker.js"),
};
const workerImports = {};
for (const [name, input] of Object.entries(workers)) {
  const build = await rolldown({ ...commonInput, input: { [name]: input } });
  const result = await build.write({ ...commonOutput, entryFileNames: "[name].js", codeSplitting: false });
  await build.close();
  // Its static imports, and the runtime packages it names in a string (photon, required through createRequire).
  const code = result.output.map((chunk) => (chunk.type === "chunk" ? chunk.code : "")).join("\n");
  const imported = result.output.flatMap((chunk) => (chunk.type === "chunk" ? chunk.imports : []));
  const named = RUNTIME_PACKAGES.filter((pkg) =>
    ['"', "'", "`"].some((quote) => code.includes(`${quote}${pkg}${quote}`)),
  );
  workerImports[`${name}.js`] = [
    ...new Set([...imported.filter((id) => !isBuiltin(id)).map(packageOf), ...named]),
  ].sort();
}
for (const key of Object.keys(GLUE)) if (!glued.has(key)) fail(`glue for ${key}: the module was not bundled`);

// The launcher itself, as one file (dist/launcher.js from src/cli.ts): one module to load instead of eight.
const launcher = await rolldown({
  input: join(packageRoot, "src", "cli.ts"),
  platform: "node",
  external: isBuiltin,
  logLevel: "warn",
});
await launcher.write({
  file: join(packageRoot, "dist", "launcher.js"),
  format: "esm",
  comments: false,
  sourcemap: false,
});
await launcher.close();

// Nothing outside the bundle but Node's builtins and the packages named above.
const outputs = readdirSync(out).filter((file) => file.endsWith(".js"));
const leftOutside = new Set();
for (const chunk of [...mainOutput.output, ...lazyOutput.output]) {
  if (chunk.type !== "chunk") continue;
  for (const id of [...chunk.imports, ...chunk.dynamicImports]) {
    if (!id.startsWith(".") && !isBuiltin(id) && !outputs.includes(id)) leftOutside.add(id);
  }
}
for (const id of leftOutside) if (!EXTERNAL.has(packageOf(id))) fail(`the bundle imports ${id} from node_modules`);
for (const [worker, names] of Object.entries(workerImports)) {
  for (const name of names) if (!RUNTIME_PACKAGES.includes(name)) fail(`${worker} imports ${name} from node_modules`);
}

// The patch check: every copy of a patched package that went into the bundle is the patched one.
const patches = [];
for (const spec of patchSpecs) {
  const dirs = new Set();
  for (const id of inputs) {
    const at = id.lastIndexOf(`${sep}node_modules${sep}${spec.name.split("/").join(sep)}${sep}`);
    if (at !== -1) dirs.add(id.slice(0, at + `${sep}node_modules${sep}`.length + spec.name.length));
  }
  if (dirs.size === 0) fail(`${spec.name} is patched (pnpm-workspace.yaml) but no file of it is in the bundle`);
  for (const dir of dirs) {
    const version = readJson(join(dir, "package.json")).version;
    if (version !== spec.version) fail(`${dir} is ${spec.name}@${version}, the patch is for ${spec.version}`);
    checkPatched(spec, dir);
  }
  patches.push({ package: spec.name, file: basename(spec.patch), sha256: sha256(readFileSync(spec.patch)) });
}

// ---------------------------------------------------------------------------------------------------------------
// The manifest.
// ---------------------------------------------------------------------------------------------------------------
const fileEntry = (path) => {
  const bytes = readFileSync(path);
  return { sha256: sha256(bytes), size: bytes.length };
};
const bundleFiles = {};
for (const file of outputs.sort()) bundleFiles[file] = fileEntry(join(out, file));

/** Every file of a runtime package that can run or be read as code: scripts, wasm, native addons, JSON. */
function packageFiles(dir) {
  const files = {};
  const walk = (at) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(path);
      } else if (/\.(c|m)?js$|\.wasm$|\.node$|\.json$/.test(entry.name)) {
        files[relative(dir, path).split(sep).join("/")] = fileEntry(path);
      }
    }
  };
  walk(dir);
  return files;
}
const upstream = {};
for (const name of RUNTIME_PACKAGES) {
  const dir = findPackageDir(name, bundleDir);
  if (!dir) fail(`${name} is not installed next to @pi-rails/pi (run pnpm install)`);
  const version = readJson(join(dir, "package.json")).version;
  upstream[name] = { version, files: packageFiles(dir) };
}

const manifest = {
  format: 2,
  pi: { name: PI, version: piPackage.version },
  node: piPackage.engines.node,
  patches,
  bundle: { entry: "cli-runtime.js", files: bundleFiles },
  workers: workerImports,
  upstream,
};
writeFileSync(join(out, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
const bytes = Object.values(bundleFiles).reduce((sum, file) => sum + file.size, 0);
const stat = statSync(join(out, "manifest.json"));
const old = join(packageRoot, "dist", `.bundle-old-${process.pid}`);
if (existsSync(bundleDir)) renameSync(bundleDir, old);
renameSync(out, bundleDir);
rmSync(old, { recursive: true, force: true });
console.log(
  `build-bundle: ${PI}@${piPackage.version} ${patches.length ? `patched (${patches.map((p) => p.file).join(", ")})` : "UNPATCHED (no patchedDependencies for pi yet)"}: ` +
    `${outputs.length} files, ${(bytes / 2 ** 20).toFixed(1)} MiB, manifest ${stat.size} bytes, ${Date.now() - started} ms`,
);
