import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
  type CheckpointHost,
  emitEvent,
  latestSessionEntry,
  resolveAgentDir,
  type SessionNotices,
  sessionBranch,
  writeSessionEntry,
} from "@pi-rails/agent-core/kit";
import { type CancelBackend, SteeringBridge } from "../bridge/steering-bridge.ts";
import { ensurePrivateDir, steeringDir } from "../endpoint/paths.ts";
import { type Endpoint, startEndpoint } from "../endpoint/server.ts";
import { STEERING_ACK_EVENT, STEERING_CHECKPOINT_EVENT, STEERING_READY_EVENT, type SteeringApi } from "../events.ts";
import { QUEUE_SNAPSHOT_ENTRY, writeAuditRecords } from "../pi/session-entries.ts";
import type { SteeringItem } from "../queue/types.ts";
import { openSessionStore, type SessionStore } from "../store/session-store.ts";
import { handToPiQueue } from "./pi-queue.ts";

/** Says a notice once per session (a TUI notification, or a line on stderr in print mode). */
export type Notify = (key: string, message: string, level?: "info" | "warning") => void;

/**
 * One session's steering, the same on both hosts: the bridge, its journal (accepted means on disk; only the process
 * holding the session's lock restores and delivers), the queue snapshot and audit records in the session file, the
 * control socket, the `pi.events` API and the footer.
 */
export class SteeringSession {
  readonly bridge: SteeringBridge;
  readonly #pi: ExtensionAPI;
  readonly #ctx: ExtensionContext;
  readonly #notify: Notify;
  #store: SessionStore | undefined;
  #endpoint: Endpoint | undefined;
  /** Ids of the last snapshot written or read ("" for an empty one; undefined when there was none). */
  #snapshotIds: string | undefined;
  readonly #cleanups: (() => void)[] = [];

  constructor(
    pi: ExtensionAPI,
    ctx: ExtensionContext,
    host: CheckpointHost,
    notices: SessionNotices,
    cancel?: CancelBackend,
  ) {
    this.#pi = pi;
    this.#ctx = ctx;
    this.#notify = (key, message, level) => notices.once(ctx, key, message, level);
    if (host.missing.length > 0) {
      this.#notify(
        "seams",
        `this pi (${host.kind} pi, without the pi-rails patch) has no ${host.missing.join(", ")} seam: inbox notes go to pi's follow-up queue once a run starts; the others wait for ${host.seams.join(", ")}`,
      );
    }
    this.bridge = new SteeringBridge({
      sessionId: ctx.sessionManager.getSessionId(),
      cwd: ctx.cwd,
      host: {
        seams: host.seams,
        cancel,
        handoff: (items, running) => handToPiQueue(pi, items, running),
        audit: (items, seam, iteration) => writeAuditRecords(pi, items, seam, iteration),
      },
    });
    this.#restore();
    this.#cleanups.push(
      this.bridge.queue.onAccept(() => this.#footer()),
      this.bridge.onAck((ack) => {
        emitEvent(pi.events, STEERING_ACK_EVENT, ack);
        this.#footer();
      }),
      this.bridge.onCheckpoint((checkpoint) => emitEvent(pi.events, STEERING_CHECKPOINT_EVENT, checkpoint)),
    );
  }

  /** Serve the control socket (unless another process steers the session), announce the API, hand over to pi. */
  async start(): Promise<void> {
    if (this.#store?.owned !== false) {
      try {
        this.#endpoint = await startEndpoint({ bridge: this.bridge, agentDir: resolveAgentDir() });
      } catch (error) {
        this.#notify("endpoint", `the steering socket is off for this session: ${(error as Error).message}`);
      }
    }
    emitEvent(this.#pi.events, STEERING_READY_EVENT, { api: this.api() });
    this.bridge.handOff();
    this.#footer();
  }

  /** The typed API other extensions get with `ready`. */
  api(): SteeringApi {
    const bridge = this.bridge;
    return {
      sessionId: bridge.sessionId,
      inject: (input) => bridge.inject(input),
      revoke: (id) => bridge.revoke(id),
      pending: () => bridge.pending(),
      status: () => bridge.status(),
      cancelToolCall: (callId, options) => bridge.cancelToolCall(callId, options),
      socketPath: () => this.#endpoint?.socketPath,
    };
  }

  /** Write what is pending as the session's snapshot, unless that would repeat the last one. */
  persistSnapshot(items: SteeringItem[] = this.bridge.pending()): void {
    const ids = items.map((item) => item.id).join(",");
    if (ids === (this.#snapshotIds ?? "")) return;
    writeSessionEntry(this.#pi, QUEUE_SNAPSHOT_ENTRY, { version: 1, items });
    this.#snapshotIds = ids;
  }

  /** End the session's steering; `persistLeftovers` only while its session is still the one appended to. */
  async close(persistLeftovers: boolean): Promise<void> {
    if (persistLeftovers) {
      // Settled before the listeners go, so producers and subscribers still hear these acks.
      const { audited, carried } = this.bridge.queue.settleForShutdown();
      writeAuditRecords(this.#pi, audited, "shutdown", 0);
      this.persistSnapshot(carried);
    }
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
    await this.#endpoint?.close();
    this.bridge.dispose();
    if (this.#store?.owned) this.#store.close();
  }

  /** Open the session's journal and queue what it (and, for older sessions, the snapshot) holds unsettled. */
  #restore(): void {
    const bridge = this.bridge;
    const queue = bridge.queue;
    const { sessionManager, cwd } = this.#ctx;
    try {
      const dir = steeringDir(resolveAgentDir());
      ensurePrivateDir(dir);
      const session = { sessionId: bridge.sessionId, cwd, sessionFile: sessionManager.getSessionFile() };
      this.#store = openSessionStore(dir, session);
    } catch (error) {
      this.#notify("journal", `steering items are not persisted for this session: ${(error as Error).message}`);
    }
    const store = this.#store;
    if (store?.owned === false) {
      const why = `session ${bridge.sessionId} is steered by ${store.owner.pid > 0 ? `pi process ${store.owner.pid}` : "another pi process"}`;
      this.#cleanups.push(
        queue.onAccept(() => {
          throw new Error(`${why}; queue items there (this process does not deliver them)`);
        }),
      );
      this.#notify("taken", `steering is off in this process: ${why}`);
      return;
    }
    if (store) {
      const { journal } = store;
      this.#cleanups.push(
        queue.onAccept((item) => journal.accept(item)),
        // What is handed to pi is on disk as settled first: if that write fails, the items stay pending.
        queue.onDeliver((acks) => {
          try {
            journal.settleNow(acks);
          } catch (error) {
            const why = `their delivery could not be written to ${journal.path}: ${(error as Error).message}`;
            const next = "they are tried again at the next hand-over, or by the next pi of this session";
            this.#notify("journal-settle", `steering items stay queued, not handed to pi, because ${why}; ${next}`);
            throw error;
          }
        }),
        bridge.onAck((ack) => journal.settle(ack)),
        // Handed over (settled on disk) but dropped by pi: pending again on disk too.
        queue.onReopen((items) => {
          try {
            journal.reopen(items);
          } catch (error) {
            const why = `${items.length} steering item(s) pi did not take could not be written back to ${journal.path}: ${(error as Error).message}`;
            this.#notify("journal-reopen", `${why}; this process still delivers them, a later one would not`);
          }
        }),
      );
      for (const [i, notice] of store.state.notices.entries()) this.#notify(`journal-${i}`, notice, "warning");
      queue.rememberSettled(store.state.settled);
      queue.restore(store.state.pending);
      const adopted = `${store.adopted} steering item(s) accepted by a pi that ended before its session was saved`;
      if (store.adopted > 0) this.#notify("adopted", `${adopted} go to this session`, "info");
    }
    // Snapshots in the session file (written by earlier versions too): what the journal does not know yet.
    const snapshot = latestSessionEntry(sessionBranch(sessionManager), QUEUE_SNAPSHOT_ENTRY);
    this.#snapshotIds = snapshot?.items.map((item) => item.id).join(",");
    for (const item of queue.restore(snapshot?.items ?? [])) store?.journal.accept(item);
  }

  #footer(): void {
    if (!this.#ctx.hasUI) return;
    const n = this.bridge.queue.size;
    try {
      this.#ctx.ui.setStatus("steering", n > 0 ? `steer: ${n} pending` : undefined);
    } catch {
      // A replaced session's context may refuse; the next session_start sets a fresh one.
    }
  }
}
