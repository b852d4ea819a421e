import { realpathSync } from "node:fs";
import { isInside, resolveAgentDir } from "@pi-rails/agent-core/kit";
import { steeringDir } from "../endpoint/paths.ts";
import { listSessions, type SessionInfo } from "../endpoint/session-registry.ts";

/** Why no single session could be chosen; `pi-steer` prints it and exits 2. */
export class SessionChoiceError extends Error {
  readonly candidates: SessionInfo[];
  constructor(message: string, candidates: SessionInfo[] = []) {
    super(message);
    this.name = "SessionChoiceError";
    this.candidates = candidates;
  }
}

/** Live steering sessions of this user (stale registry files of dead processes are removed). */
export function findSessions(options: { agentDir?: string } = {}): SessionInfo[] {
  return listSessions(steeringDir(options.agentDir ?? resolveAgentDir()));
}

/**
 * The session to talk to: the one named by `sessionId` (a unique prefix is enough), else the only live session
 * whose cwd is `cwd` or, failing that, its nearest parent with a session.
 */
export function resolveSession(
  options: { sessionId?: string | undefined; cwd?: string; agentDir?: string } = {},
): SessionInfo {
  const sessions = findSessions(options);
  const { sessionId } = options;
  if (sessionId) {
    const matches = sessions.filter((s) => s.sessionId.startsWith(sessionId));
    const exact = matches.find((s) => s.sessionId === sessionId);
    if (exact) return exact;
    if (matches.length === 1) return matches[0]!;
    if (matches.length === 0) throw new SessionChoiceError(`no live pi session with id ${sessionId}`, sessions);
    throw new SessionChoiceError(`session id prefix ${sessionId} matches ${matches.length} sessions`, matches);
  }
  const cwd = canonical(options.cwd ?? process.cwd());
  const here = nearestSessions(sessions, cwd);
  if (here.length === 1) return here[0]!;
  if (here.length === 0) {
    throw new SessionChoiceError(
      sessions.length === 0
        ? "no live pi session with the steering bridge (start pi with -e @pi-rails/steering-bridge)"
        : `no live pi session in ${cwd} or a parent of it; pass --session <id> (pi-steer sessions lists them)`,
      sessions,
    );
  }
  throw new SessionChoiceError(
    `${here.length} live pi sessions in ${canonical(here[0]!.cwd)}; pass --session <id>`,
    here,
  );
}

/**
 * The sessions whose cwd is `cwd` or its nearest ancestor that has any (the way git finds its root): `pi-steer`
 * run in `src/` of a project finds the pi running in the project.
 */
export function nearestSessions(sessions: readonly SessionInfo[], cwd: string): SessionInfo[] {
  const enclosing = sessions
    .map((session) => ({ session, root: canonical(session.cwd) }))
    .filter(({ root }) => isInside(root, cwd));
  const nearest = Math.max(...enclosing.map(({ root }) => root.length));
  return enclosing.filter(({ root }) => root.length === nearest).map(({ session }) => session);
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
