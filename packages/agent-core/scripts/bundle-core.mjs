#!/usr/bin/env node
// Bundle the patched pi loop into dist/core/ and point our compiled files at it, because a pnpm patch
// does not travel with a package published to npm: users of @pi-rails/agent-core get the patched loop.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { coreDistFiles, packageRoot, patchedCoreDir } from "./core-files.mjs";

const dist = join(packageRoot, "dist");
const coreOut = join(dist, "core");
mkdirSync(coreOut, { recursive: true });

const patched = readFileSync(join(patchedCoreDir(), "dist", "agent-loop.js"), "utf8");
if (!patched.includes("[pi-rails]")) {
  console.error("bundle-core: the installed @earendil-works/pi-agent-core is not patched (run pnpm install)");
  process.exit(1);
}
for (const file of coreDistFiles()) copyFileSync(file.path, join(coreOut, file.name));
const upstreamPkg = JSON.parse(readFileSync(join(patchedCoreDir(), "package.json"), "utf8"));
writeFileSync(
  join(coreOut, "NOTICE.md"),
  `This folder is ${upstreamPkg.name}@${upstreamPkg.version} (${upstreamPkg.license}, ${upstreamPkg.author}, ` +
    `${upstreamPkg.repository?.url ?? ""}) with the pi-rails patch applied (patches/ in the pi-rails repository).\n`,
);

function rewrite(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === coreOut) continue;
    if (statSync(path).isDirectory()) {
      rewrite(path);
      continue;
    }
    if (!name.endsWith(".js") && !name.endsWith(".d.ts")) continue;
    const text = readFileSync(path, "utf8");
    if (!text.includes('"@earendil-works/pi-agent-core"')) continue;
    let target = relative(dirname(path), join(coreOut, "index.js")).replaceAll("\\", "/");
    if (!target.startsWith(".")) target = `./${target}`;
    writeFileSync(path, text.replaceAll('"@earendil-works/pi-agent-core"', JSON.stringify(target)));
  }
}
rewrite(dist);
console.log(`bundle-core: patched loop bundled into ${relative(packageRoot, coreOut)}`);
