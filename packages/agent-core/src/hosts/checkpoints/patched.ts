import type { CheckpointEvents, CheckpointHandler } from "../checkpoints.ts";

/**
 * The patched pi: its `checkpoint` event is every seam (the answer's messages are appended by the loop, which always
 * keeps them: `settled(true)` is told first, and a throw there withholds them), `loop_checkpoint` every pass.
 */
export function patchedCheckpointHost(handler: CheckpointHandler): CheckpointEvents {
  return {
    checkpoint: async (event, ctx) => {
      const toolCalls = event.toolCalls.map(({ id, name }) => ({ id, name }));
      const answer = await handler.checkpoint({ kind: event.kind, iteration: event.iteration, toolCalls }, ctx);
      if (!answer || answer.messages.length === 0) return undefined;
      try {
        answer.settled?.(true);
      } catch {
        return undefined;
      }
      const { messages, skipToolDispatch, skipReason } = answer;
      return {
        messages: [...messages] as never[],
        skipToolDispatch,
        ...(skipReason !== undefined && { skipReason }),
      };
    },
    loop_checkpoint: ({ iteration, kind, delivered, dispatchSkipped }, ctx) => {
      try {
        handler.pass?.({ iteration, kind, delivered, dispatchSkipped }, ctx);
      } catch {
        // Observers never disturb the loop.
      }
    },
  };
}
