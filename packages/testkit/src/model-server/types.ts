/**
 * Types of the loopback model servers: what a test scripts, and what the servers record.
 * One scripted-turn description (`ScriptedResponse`) drives every wire format.
 * Kept apart from the servers so the planners and the pi helpers can share them.
 */

/**
 * The provider wire formats the testkit speaks, named like pi-ai's `Api` values:
 * OpenAI chat completions, Anthropic Messages, OpenAI Responses, Gemini `streamGenerateContent`.
 */
export type WireFormat = "openai-completions" | "anthropic-messages" | "openai-responses" | "google-generative-ai";

/**
 * Token counts of one answer, format-neutral. Each server reports them in its API's own shape
 * (e.g. OpenAI counts cached tokens inside `input_tokens`, Anthropic does not).
 */
export interface ScriptedUsage {
  /** Input tokens not read from the cache. */
  prompt_tokens: number;
  completion_tokens: number;
  /** Input tokens read from the prompt cache. Default 0. */
  cache_read_tokens?: number;
  /** Input tokens written to the prompt cache (only Anthropic and chat completions report it). Default 0. */
  cache_write_tokens?: number;
}

/** Usage in pi-ai's terms (what pi adds to the session), as a server reported it on the wire. */
export interface ReportedUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

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
 * One answer of a server to one request, in any wire format.
 * Streamed in this order: thinking, text, tool calls, then the format's end events (finish, usage).
 */
export interface ScriptedResponse {
  text?: string;
  /** Streamed as reasoning deltas (field `reasoning_content` unless `reasoningField` says otherwise). */
  thinking?: string;
  /**
   * Delta field used for `thinking` in chat completions; default `reasoning_content` (what llama.cpp /
   * DeepSeek send). On Responses, `reasoning_text` streams raw reasoning content
   * (`response.reasoning_text.delta`, as open-weight models do) instead of a summary.
   */
  reasoningField?: ReasoningField;
  toolCalls?: ScriptedToolCall[];
  /** Characters (code points) per delta, for text, thinking and tool-call arguments alike. Default 4. */
  chunkSize?: number;
  /** Pause before every delta after the first, in ms. Default 0. */
  delayMs?: number;
  /**
   * Default: `tool_calls` when there are tool calls, else `stop`. Mapped per format (Anthropic
   * `end_turn`/`tool_use`/`max_tokens`, Responses `completed`/`incomplete`, Gemini `STOP`/`MAX_TOKENS`).
   */
  finishReason?: "stop" | "tool_calls" | "length";
  /** Reported usage; default estimates (4 chars per token). Chat completions sends it when asked or set. */
  usage?: ScriptedUsage;
  /**
   * The provider hides the thinking and sends only its signed form: Anthropic a `redacted_thinking` block,
   * Responses a reasoning item with an empty summary (`encrypted_content` only), Gemini no thought parts
   * (the signature still comes), chat completions no reasoning deltas. What a thinking rule can then see:
   * nothing. Needs `thinking` (the hidden text, which the signature covers).
   */
  thinkingRedacted?: boolean;
  /**
   * Signature of the thinking block (Anthropic `signature_delta`, Responses `encrypted_content`, Gemini
   * `thoughtSignature`). Default: one the server issues and later verifies in strict mode.
   */
  thinkingSignature?: string;
  /**
   * Fail mid-stream: after `afterDeltas` content deltas (default 0) the server sends the format's own error
   * event and ends the response (Anthropic `event: error` overloaded_error, Responses `response.failed`,
   * chat completions a `data: {"error": …}` chunk, Gemini a bare JSON error object).
   */
  streamError?: { afterDeltas?: number; message?: string };
  /** When >= 400 the server answers this status with `errorBody` instead of a stream. */
  httpStatus?: number;
  /** Body of an error answer; default the format's own JSON error shape. */
  errorBody?: string;
}

/** What the server saw of one request and how far it got answering it. */
export interface RecordedRequest {
  /** 0-based position among all model requests this server received. */
  index: number;
  /** The wire format of the server that received it. */
  format: WireFormat;
  method: string;
  url: string;
  /** Parsed JSON body. */
  body: Record<string, unknown>;
  /**
   * The conversation as the format carries it: chat `messages`, Anthropic `messages`, Responses `input`
   * items (some have `type` instead of `role`), Gemini `contents` (`role` user/model, `parts`).
   */
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
  /** When the request arrived (`performance.now()` of the server's process): latency benches read it. */
  receivedAt: number;
  /** When each content delta was written (`performance.now()`), in order: `deltaTimes.length === deltasSent`. */
  deltaTimes: number[];
  /** The client closed the connection before the server finished the response. */
  closedEarly: boolean;
  /** The server wrote the whole response (including `[DONE]`, or the error body). */
  completed: boolean;
  /** Strict mode refused the request: the HTTP status and the API's message it answered with. */
  rejected?: { status: number; message: string };
  /**
   * The usage the stream had told the client when it ended or was cut (pi-ai's terms); undefined while
   * none was sent. Anthropic sends input and cache usage first (`message_start`), Gemini with every chunk,
   * chat completions and Responses only at the end, so an aborted attempt there reports none.
   */
  usageReported?: ReportedUsage;
}

/** A message (or input item) as the client sent it; loose because providers differ. */
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
  /**
   * Answer 400, with the API's own error shape and message, to any request the real API would refuse
   * (unpaired tool calls/results, a function call without its reasoning item, a modified signed thinking
   * block, empty content). Default false. See `strict.ts` of each format.
   */
  strict?: boolean;
  /**
   * Simulate the provider's prompt cache (see `prompt-cache.ts`): each request is billed by what an
   * identical earlier prefix left in the cache within `ttlMs` (move `now` to expire it). A response without
   * scripted `usage` reports that bill. Anthropic caches at `cache_control` breakpoints (read + write),
   * OpenAI and Gemini any prefix (read only).
   */
  promptCache?: boolean | { ttlMs?: number; now?: () => number; minTokens?: number };
  /** Port on 127.0.0.1; default 0 (any free port). */
  port?: number;
  /** Model id listed by `GET /v1/models`; default `loopback-model`. */
  modelId?: string;
  /** Defaults applied to every scripted response (e.g. a slower `delayMs` for all). */
  defaults?: Pick<ScriptedResponse, "chunkSize" | "delayMs">;
}

/** A running loopback model server of one wire format. */
export interface ModelServer {
  readonly format: WireFormat;
  /**
   * What a pi model's `baseUrl` should be, as the real API's base: chat completions and Responses
   * `http://127.0.0.1:PORT/v1`, Anthropic `http://127.0.0.1:PORT`, Gemini `http://127.0.0.1:PORT/v1beta`.
   */
  readonly baseUrl: string;
  readonly port: number;
  /** Whether strict mode is on (see `ModelServerOptions.strict`). */
  readonly strict: boolean;
  /** Every model request, in arrival order (live objects: counters update while streaming). */
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
