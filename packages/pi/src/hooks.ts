/**
 * Node module customization hooks (registered with `module.register`, run on the loader thread): upstream pi is
 * loaded as installed, except that the few files the pi-rails patch changes are served from the patched copies
 * this package ships. The module keeps its upstream URL, so its relative imports, `import.meta.url` and pi's own
 * asset lookups resolve exactly as in stock pi. A file the patch adds (it has no upstream file) resolves at the
 * upstream URL it would have.
 */
import { readFile } from "node:fs/promises";

export interface HookData {
  /** [upstream file URL, absolute path of the patched copy]. */
  files: [string, string][];
  /** Upstream file URLs that exist only in the patched package. */
  added: string[];
}

type Next<T> = (...args: never[]) => Promise<T>;
interface ResolveResult {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}
interface LoadResult {
  format: string;
  source?: string | ArrayBuffer | Uint8Array | null;
  shortCircuit?: boolean;
}

let patched = new Map<string, string>();
let added = new Set<string>();

export async function initialize(data: HookData): Promise<void> {
  patched = new Map(data.files);
  added = new Set(data.added);
}

export async function resolve(
  specifier: string,
  context: { parentURL?: string },
  nextResolve: Next<ResolveResult>,
): Promise<ResolveResult> {
  if (context.parentURL && (specifier.startsWith("./") || specifier.startsWith("../"))) {
    const url = new URL(specifier, context.parentURL).href;
    if (added.has(url)) return { url, format: "module", shortCircuit: true };
  }
  return (nextResolve as (specifier: string, context: unknown) => Promise<ResolveResult>)(specifier, context);
}

export async function load(url: string, context: unknown, nextLoad: Next<LoadResult>): Promise<LoadResult> {
  const replacement = patched.get(url);
  if (replacement) return { format: "module", source: await readFile(replacement), shortCircuit: true };
  return (nextLoad as (url: string, context: unknown) => Promise<LoadResult>)(url, context);
}
