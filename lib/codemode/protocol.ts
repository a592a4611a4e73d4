/**
 * Messages between the sandbox pool (caller's process) and a sandbox child over Bun IPC. Values
 * that came from a script or go into one travel as JSON strings, so the child never builds host
 * objects from them and the parent measures sizes before parsing.
 */

/** Limits applied by the child to one exec (copied from settings by the pool). */
export interface ExecLimits {
  readonly timeoutMs: number
  /** Heap cap; the child builds its engines with it (set once per child via `init`). */
  readonly memoryMb: number
  readonly cpuSliceMs: number
  readonly stackBytes: number
  readonly maxToolCalls: number
  readonly maxConcurrentCalls: number
  readonly maxResultBytes: number
  readonly maxLogLines: number
  readonly maxLogLineBytes: number
}

/** Why an exec failed; stable, part of SandboxError. */
export type SandboxFailureReason =
  | 'syntax' // the script does not parse
  | 'runtime' // the script threw (or rejected) and did not catch it
  | 'deadline' // wall-clock deadline passed
  | 'cpu' // ran synchronously longer than the CPU slice
  | 'memory' // hit the heap cap
  | 'stalled' // awaited a promise nothing can ever settle
  | 'limit' // too many tool calls, too large a result or argument, too long a script, queue full
  | 'crash' // the sandbox process died or was killed
  | 'cancelled' // the caller aborted

export interface ExecStats {
  readonly durationMs: number
  readonly toolCalls: number
  readonly searches: number
  readonly logLines: number
  readonly logsDropped: number
  readonly resultBytes: number
}

export interface ScriptFailure {
  readonly reason: SandboxFailureReason
  readonly message: string
  /** Error name inside the script (`TypeError`, `ToolError`…) when it threw. */
  readonly name?: string
  /** 1-based line of a syntax error in the submitted script. */
  readonly line?: number
  readonly column?: number
  readonly stack?: string
}

export type ParentMessage =
  | { readonly t: 'init'; readonly memoryMb: number }
  | {
      readonly t: 'exec'
      readonly id: number
      readonly code: string
      readonly namespaces: Readonly<Record<string, readonly string[]>>
      readonly limits: ExecLimits
    }
  /** Answer to a `call`: `json` is `{"ok":true,"value":…}` or `{"ok":false,"error":{message,code,data?}}`. */
  | { readonly t: 'reply'; readonly id: number; readonly callId: number; readonly json: string }
  | { readonly t: 'cancel'; readonly id: number }

export type ChildMessage =
  | { readonly t: 'ready' }
  /** One console line as the script writes it (also kept for the result's `logs`). */
  | { readonly t: 'log'; readonly id: number; readonly line: string }
  | {
      readonly t: 'call'
      readonly id: number
      readonly callId: number
      readonly kind: 'call' | 'search'
      readonly name: string
      readonly argsJson: string
    }
  | {
      readonly t: 'done'
      readonly id: number
      /** JSON of the script's return value (absent on failure). */
      readonly valueJson?: string
      readonly failure?: ScriptFailure
      readonly logs: readonly string[]
      readonly stats: ExecStats
    }
