/**
 * The verifier: synchronous, in-thread module hooks (`module.registerHooks`, Node >= 22.15) that see every
 * `import` and `require` of this thread. A module of the bundle or of an upstream package the bundle loads runs
 * only if its real path is where the manifest puts it and the bytes Node is about to compile (the hook hashes the
 * very source it hands on) have the recorded sha256. Lazily loaded chunks are checked when they load, so start-up
 * hashes only what it runs. A refusal prints why and exits 1 at once: no caller can catch it and go on unpatched.
 */
import { readFileSync } from "node:fs";
import { registerHooks } from "node:module";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkFile, checkResolution, refusalMessage, type Zone, zoneOf } from "./verify.ts";

/** Prints the refusal and ends the process with exit code 1. */
export function refuse(problems: readonly string[]): never {
  process.stderr.write(`${refusalMessage(problems)}\n`);
  process.exit(1);
}

const pathOf = (url: string | undefined) => (url?.startsWith("file:") ? fileURLToPath(url) : undefined);

/** Files read as data next to a package's code (photon's wasm): checked when the package's first module loads. */
const DATA_FILE = /\.wasm$/;

export class Verifier {
  private readonly verified = new Set<string>();
  private readonly packagesChecked = new Set<Zone>();

  constructor(readonly zones: readonly Zone[]) {}

  /** Checks bytes about to run or be used; refuses (exit 1) on a mismatch. */
  check(path: string, bytes: Uint8Array | string): void {
    const problem = checkFile(this.zones, path, bytes);
    if (problem) refuse([problem]);
    this.verified.add(path);
    const at = zoneOf(this.zones, path);
    if (at?.zone.version !== undefined) this.checkDataFiles(at.zone);
  }

  /** Reads a file of a zone and checks it; returns its bytes. A path in no zone is refused. */
  read(path: string): Buffer {
    if (!zoneOf(this.zones, path)) refuse([`${path} is neither in the bundle nor in an upstream package it loads`]);
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (error) {
      refuse([`${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`]);
    }
    this.check(path, bytes);
    return bytes;
  }

  /** Checks every file of an upstream package (for a worker thread, where no hook runs). */
  checkPackage(name: string): void {
    const zone = this.zones.find((candidate) => candidate.name === name);
    if (!zone) refuse([`the manifest names no upstream package ${name}`]);
    for (const file of Object.keys(zone.files)) {
      const path = join(zone.root, ...file.split("/"));
      if (!this.verified.has(path)) this.read(path);
    }
  }

  private checkDataFiles(zone: Zone): void {
    if (this.packagesChecked.has(zone)) return;
    this.packagesChecked.add(zone);
    for (const file of Object.keys(zone.files)) {
      const path = join(zone.root, ...file.split("/"));
      if (DATA_FILE.test(file) && !this.verified.has(path)) this.read(path);
    }
  }

  /** Registers the hooks on this thread. */
  install(): void {
    registerHooks({
      resolve: (specifier, context, nextResolve) => {
        const result = nextResolve(specifier, context);
        const problem = checkResolution(this.zones, pathOf(context.parentURL), specifier, pathOf(result.url));
        if (problem) refuse([problem]);
        return result;
      },
      load: (url, context, nextLoad) => {
        const result = nextLoad(url, context);
        const path = pathOf(url);
        if (path === undefined || !zoneOf(this.zones, path)) return result;
        if (result.source === undefined || result.source === null || extname(path) === ".node") {
          // A native addon (or a loader that hands no source): check the file Node will open.
          this.read(path);
          return result;
        }
        const source = result.source;
        const bytes =
          typeof source === "string"
            ? source
            : source instanceof ArrayBuffer
              ? new Uint8Array(source)
              : new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
        this.check(path, bytes);
        return result;
      },
    });
  }
}
