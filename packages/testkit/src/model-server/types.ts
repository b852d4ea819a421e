/**
 * Types of the loopback model server: what a test scripts, and what the server records.
 * Kept apart from the server so the chunk planner and the pi helpers can share them.
 */

/** Which delta field carries reasoning. pi-ai's openai-completions client reads the first non-empty of these. */
export type ReasoningField = "reasoning_content" | "reasoning" | "reasoning_text";

/** One scripted tool call; `arguments` is streamed as JSON text in `chunkSize` slices. */
export interface ScriptedToolCall {
  /** Tool call id; default `call_<requestIndex>_<position>`. */
  id?: string;
  name: string;
  /** A JSON string (sent verbatim, may even be invalid JSON) or an object (JSON.stringify'd). */
  arguments: string | Record<string, unknown>;
}

/**
 * One answer of the server to one chat-completions request.
 * Streamed in this order: thinking, text, tool calls, finish chunk, usage chunk, `[DONE]`.
 */
export interface ScriptedResponse {
  text?: string;
  /** Streamed as reasoning deltas (field `reasoning_content` unless `reasoningField` says otherwise). */
  thinking?: string;
  /** Delta field used for `thinking`; default `reasoning_content` (what llama.cpp / DeepSeek send). */
  reasoningField?: ReasoningField;
  toolCalls?: ScriptedToolCall[];
  /** Characters (code points) per delta, for text, thinking and tool-call arguments alike. Default 4. */
  chunkSize?: number;
  /** Pause before every delta after the first, in ms. Default 0. */
  delayMs?: number;
  /** Default: `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: "stop" | "tool_calls" | "length";
  /** Reported usage; default estimates (4 chars per token). Sent when the client asked for it or it is set. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** When >= 400 the server answers this status with `errorBody` instead of a stream. */
  httpStatus?: number;
  /** Body of an error answer; default an OpenAI-style JSON error. */
  errorBody?: string;
}

/** What the server saw of one request and how far it got answering it. */
export interface RecordedRequest {
  /** 0-based position among all chat-completions requests this server received. */
  index: number;
  method: string;
  url: string;
  /** Parsed JSON body. */
  body: Record<string, unknown>;
  /** `body.messages` (OpenAI chat format: system/developer/user/assistant/tool). */
  messages: ChatMessage[];
  headers: Record<string, string | string[] | undefined>;
  /** The response the script chose for this request. */
  response: ScriptedResponse;
  /** True when the array script had run out and the default answer was sent. */
  scriptExhausted: boolean;
  /** Content deltas (thinking, text, tool-call) the response was going to send. */
  deltasPlanned: number;
  /** Content deltas actually written before the response ended or the client went away. */
  deltasSent: number;
  /** The client closed the connection before the server finished the response. */
  closedEarly: boolean;
  /** The server wrote the whole response (including `[DONE]`, or the error body). */
  completed: boolean;
}

/** A chat message as the client sent it; loose because providers differ. */
export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** Picks the response for a request: called once per request, may be async. */
export type ScriptFunction = (request: RecordedRequest, index: number) => ScriptedResponse | Promise<ScriptedResponse>;

/** Either responses consumed in order, or a function deciding per request. */
export type Script = ScriptedResponse[] | ScriptFunction;

export interface ModelServerOptions {
  script?: Script;
  /** Port on 127.0.0.1; default 0 (any free port). */
  port?: number;
  /** Model id listed by `GET /v1/models`; default `loopback-model`. */
  modelId?: string;
  /** Defaults applied to every scripted response (e.g. a slower `delayMs` for all). */
  defaults?: Pick<ScriptedResponse, "chunkSize" | "delayMs">;
}

/** A running loopback OpenAI-compatible server. */
export interface ModelServer {
  /** `http://127.0.0.1:PORT/v1`, what a pi model's `baseUrl` should be. */
  readonly baseUrl: string;
  readonly port: number;
  /** Every chat-completions request, in arrival order (live objects: counters update while streaming). */
  readonly requests: RecordedRequest[];
  /** Replace the script; an array script starts again from its first response. */
  setScript(script: Script): void;
  /** Resolve once `n` requests have arrived; reject after `timeoutMs` (default 10000). */
  waitForRequests(n: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Resolve once no response is being written. */
  waitForIdle(): Promise<void>;
  /** Stop listening and drop open connections. */
  close(): Promise<void>;
}
