/**
 * The sandbox child process (`mcpx sandbox-child`, hidden): spawned by the pool with an empty
 * environment and no stdin/stdout, it speaks only Bun IPC. It holds no settings, config, secrets or
 * upstream connections; tool calls go back to the parent, which alone performs them. Several execs
 * may share one child: each has its own engine, and they interleave at their awaits.
 */
import { EngineSupply } from './engine.ts'
import type { ChildMessage, ParentMessage } from './protocol.ts'
import { type ScriptRun, startScript } from './script-run.ts'

/** Run the child loop until the parent disconnects. Resolves when IPC closes. */
export async function runSandboxChild(): Promise<void> {
  const send = process.send?.bind(process)
  if (!send) throw new Error('sandbox-child must be started by mcpx over IPC')
  const post = (message: ChildMessage): void => {
    send(message)
  }
  let supply: EngineSupply | undefined
  const runs = new Map<number, ScriptRun>()
  const pendingCalls = new Map<string, (json: string) => void>()
  let nextCallId = 0

  const cancelledEarly = new Set<number>()
  let failInit!: (error: Error) => void
  const closed = new Promise<void>((resolve, reject) => {
    process.once('disconnect', () => {
      // The parent is gone: nobody can receive results, so stop every script (clears their timers).
      for (const run of runs.values()) run.cancel()
      resolve()
    })
    failInit = reject
  })

  process.on('message', (raw: unknown) => {
    const message = raw as ParentMessage
    switch (message.t) {
      case 'init': {
        supply = new EngineSupply(message.memoryMb)
        supply.warm().then(
          () => post({ t: 'ready' }),
          (error: unknown) => failInit(new Error(`sandbox-child: cannot load QuickJS: ${String(error)}`, { cause: error })),
        )
        return
      }
      case 'exec': {
        const engines = supply ?? (supply = new EngineSupply(message.limits.memoryMb))
        const { id } = message
        const noEngine = (error: unknown) =>
          post({
            t: 'done',
            id,
            failure: { reason: 'crash', message: `sandbox engine could not be created: ${String(error)}` },
            logs: [],
            stats: { durationMs: 0, toolCalls: 0, searches: 0, logLines: 0, logsDropped: 0, resultBytes: 0 },
          })
        void engines.take().then((engine) => {
          const run = startScript(
            engine,
            message,
            (kind, name, argsJson) => {
              const callId = ++nextCallId
              post({ t: 'call', id, callId, kind, name, argsJson })
              return new Promise<string>((resolve) => pendingCalls.set(`${id}:${callId}`, resolve))
            },
            (line) => post({ t: 'log', id, line }),
          )
          runs.set(id, run)
          if (cancelledEarly.delete(id)) run.cancel()
          void run.outcome.then((outcome) => {
            runs.delete(id)
            for (const key of pendingCalls.keys()) if (key.startsWith(`${id}:`)) pendingCalls.delete(key)
            post({ t: 'done', id, ...outcome })
          })
        }, noEngine)
        return
      }
      case 'reply': {
        const key = `${message.id}:${message.callId}`
        const resolve = pendingCalls.get(key)
        pendingCalls.delete(key)
        resolve?.(message.json)
        return
      }
      case 'cancel': {
        const run = runs.get(message.id)
        if (run) run.cancel()
        else cancelledEarly.add(message.id)
        return
      }
    }
  })
  await closed
}
