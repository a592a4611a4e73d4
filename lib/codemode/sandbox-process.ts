/**
 * One sandbox child as seen from the caller's process: spawn (empty environment, no stdin/stdout,
 * stderr tail kept for crash reports), the `init` → `ready` handshake, IPC routing, SIGKILL. The
 * child never gets settings or secrets; it is told its heap cap and nothing else.
 */
import type { Subprocess } from 'bun'
import type { ChildMessage, ParentMessage } from './protocol.ts'

const STDERR_TAIL_BYTES = 8 * 1024

export interface SandboxProcessHandlers {
  onMessage(message: ChildMessage): void
  /** Called once when the child is gone (exit, crash or kill). */
  onExit(detail: { exitCode: number | null; signal: string | null; stderrTail: string }): void
}

export class SandboxProcess {
  readonly ready: Promise<void>
  #proc: Subprocess
  #alive = true
  #stderrTail = ''

  constructor(command: string[], memoryMb: number, handlers: SandboxProcessHandlers) {
    let markReady!: () => void
    let failReady!: (error: Error) => void
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve
      failReady = reject
    })
    // Unobserved rejections are reported through onExit; do not crash the caller.
    this.ready.catch(() => {})
    this.#proc = Bun.spawn(command, {
      env: {},
      cwd: '/',
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'pipe',
      serialization: 'json',
      ipc: (message: ChildMessage) => {
        if (message.t === 'ready') markReady()
        else handlers.onMessage(message)
      },
      onExit: (_proc, exitCode, signalCode) => {
        this.#alive = false
        // Let the stderr drain finish first so the tail names the cause.
        void this.#drained.then(() => {
          const signal = signalCode === null || signalCode === undefined ? null : String(signalCode)
          failReady(
            new Error(`sandbox process exited (code ${exitCode}, signal ${signal}) before it was ready: ${this.#stderrTail.trim()}`),
          )
          handlers.onExit({ exitCode, signal, stderrTail: this.#stderrTail })
        })
      },
    })
    this.#drained = this.#drain()
    this.send({ t: 'init', memoryMb })
  }

  #drained: Promise<void>

  async #drain(): Promise<void> {
    const stream = this.#proc.stderr
    if (!stream || typeof stream === 'number') return
    const decoder = new TextDecoder()
    const reader = (stream as ReadableStream<Uint8Array>).getReader()
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        this.#stderrTail = (this.#stderrTail + decoder.decode(chunk.value, { stream: true })).slice(-STDERR_TAIL_BYTES)
      }
    } catch {
      // The pipe closes with the process; what was read is enough.
    }
  }

  get alive(): boolean {
    return this.#alive
  }

  get pid(): number {
    return this.#proc.pid
  }

  send(message: ParentMessage): void {
    if (this.#proc.killed || this.#proc.exitCode !== null) return
    try {
      this.#proc.send(message)
    } catch {
      // The channel closed under us; onExit reports it.
    }
  }

  /** SIGKILL: the only stop that works on a thread stuck inside a wasm builtin. */
  kill(): void {
    if (!this.#alive) return
    // Dead to the pool from now on, even before the exit is reported: no exec may be routed here.
    this.#alive = false
    this.#proc.kill('SIGKILL')
  }

  get exited(): Promise<number> {
    return this.#proc.exited
  }
}
