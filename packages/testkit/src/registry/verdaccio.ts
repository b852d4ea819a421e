/**
 * A real npm registry on 127.0.0.1 for release and install tests: verdaccio (the workspace root's devDependency)
 * with its storage in a temp folder, serving `@pi-rails/*` from what was published to it and proxying every other
 * package from the registry npm is configured with. It hands out the standard npm configuration (a userconfig
 * file with the registry and a token), so the code under test needs no registry host of its own.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface LocalRegistry {
  /** e.g. http://127.0.0.1:41234/ */
  url: string;
  /** An npm userconfig file naming the registry and holding a publish token. */
  npmrc: string;
  /** The env that points npm (and pnpm, changesets) at this registry: npm_config_registry, npm_config_userconfig. */
  env: Record<string, string>;
  /** The versions of a package the registry holds (empty when it holds none). */
  versions(name: string): Promise<string[]>;
  /** Stops verdaccio (and waits for it) and removes its storage. Safe to call twice. */
  close(): Promise<void>;
}

export interface LocalRegistryOptions {
  /** Where packages that were not published here come from; default: `npm config get registry`. */
  uplink?: string;
  /** Package patterns served only from what is published here (never proxied); default `@pi-rails/*`. */
  local?: string[];
  /** How long to wait for verdaccio to answer; default 60 s. */
  startTimeoutMs?: number;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;
/** A registry must never outlive the process that started it, even when a test throws before its `finally`. */
function killOnExit(child: ChildProcess): void {
  live.add(child);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const process_ of live) {
      try {
        if (process_.pid) process.kill(-process_.pid, "SIGKILL");
      } catch {}
    }
  });
}

/**
 * One HTTP request on a fresh connection. (fetch keeps connections alive, and verdaccio closes an idle one after a
 * while: the next request on it then fails with "other side closed" after a long step such as a release.)
 */
function call(method: string, url: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      url,
      {
        method,
        agent: false,
        headers: payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {},
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

function verdaccioBin(): string {
  const require = createRequire(import.meta.url);
  try {
    return join(dirname(require.resolve("verdaccio/package.json")), "bin", "verdaccio");
  } catch {
    throw new Error("verdaccio is not installed: it is a devDependency of the workspace root (run pnpm install)");
  }
}

/** The registry npm is configured with (the uplink), as npm itself reports it. */
export function configuredRegistry(): string {
  const url = execFileSync("npm", ["config", "get", "registry"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  }).trim();
  return url.endsWith("/") ? url : `${url}/`;
}

/** Starts verdaccio; always `close()` it in a `finally`. */
export async function startLocalRegistry(options: LocalRegistryOptions = {}): Promise<LocalRegistry> {
  const root = mkdtempSync(join(tmpdir(), "pi-rails-registry-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const uplink = options.uplink ?? configuredRegistry();
  const localPatterns = options.local ?? ["@pi-rails/*"];
  const config = [
    `storage: ${JSON.stringify(join(root, "storage"))}`,
    "auth:",
    "  htpasswd:",
    `    file: ${JSON.stringify(join(root, "htpasswd"))}`,
    "uplinks:",
    "  upstream:",
    `    url: ${JSON.stringify(uplink)}`,
    "    timeout: 120s",
    // verdaccio marks an uplink offline for 5 minutes after 2 failed requests and then answers 404 for every
    // package it has not cached: one network blip would fail the rest of a run. Never mark it offline.
    "    max_fails: 1000",
    "    fail_timeout: 1s",
    "    maxage: 30m",
    "packages:",
    ...localPatterns.flatMap((pattern) => [
      `  ${JSON.stringify(pattern)}:`,
      "    access: $all",
      "    publish: $authenticated",
    ]),
    `  "**":`,
    "    access: $all",
    "    publish: $authenticated",
    "    proxy: upstream",
    "server:",
    "  keepAliveTimeout: 60",
    "max_body_size: 200mb",
    "log: { type: stdout, format: pretty, level: error }",
  ].join("\n");
  mkdirSync(join(root, "storage"));
  writeFileSync(join(root, "config.yaml"), `${config}\n`);

  // A preload that ends verdaccio when its stdin closes: the pipe closes when this process ends in any way (a
  // test runner's SIGTERM or SIGKILL included), so no registry outlives the run that started it.
  const watchdog = join(root, "exit-with-parent.cjs");
  writeFileSync(
    watchdog,
    'process.stdin.on("end", () => process.exit(0)).on("error", () => process.exit(0)).resume();\n',
  );
  let output = "";
  const child = spawn(
    process.execPath,
    ["--require", watchdog, verdaccioBin(), "--config", join(root, "config.yaml"), "--listen", `127.0.0.1:${port}`],
    { cwd: root, detached: true, stdio: ["pipe", "pipe", "pipe"] },
  );
  killOnExit(child);
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    try {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
    } catch {}
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, 5_000);
    await exited;
    clearTimeout(timer);
    live.delete(child);
    rmSync(root, { recursive: true, force: true });
  };

  try {
    const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
    for (;;) {
      if (child.exitCode !== null) throw new Error(`verdaccio exited (${child.exitCode}):\n${output}`);
      try {
        if ((await call("GET", `${url}-/ping`)).status === 200) break;
      } catch {}
      if (Date.now() > deadline) throw new Error(`verdaccio did not answer on ${url} in time:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // A user to publish as: the token goes into an npmrc, the standard place npm and pnpm read it from.
    const user = await call("PUT", `${url}-/user/org.couchdb.user:pi-rails`, {
      name: "pi-rails",
      password: "pi-rails-local-registry",
    });
    const token = (user.json as { token?: string } | undefined)?.token;
    if (!token) throw new Error(`verdaccio gave no token (HTTP ${user.status})`);
    const npmrc = join(root, "npmrc");
    writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
    return {
      url,
      npmrc,
      env: { npm_config_registry: url, npm_config_userconfig: npmrc },
      async versions(name) {
        const res = await call("GET", `${url}${name.replace("/", "%2f")}`);
        if (res.status === 404) return [];
        if (res.status !== 200) throw new Error(`GET ${name} from the local registry: HTTP ${res.status}`);
        return Object.keys((res.json as { versions?: Record<string, unknown> }).versions ?? {});
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
