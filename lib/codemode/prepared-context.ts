/**
 * A QuickJS runtime and context made ready before any exec needs them: fresh engine, host functions
 * that delegate to whichever exec later binds them, and the prelude already evaluated (it is most
 * of an exec's start). Used by exactly one exec, then disposed: nothing crosses between scripts.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core'
import { HOST_GLOBAL, PRELUDE_SOURCE } from './prelude.ts'

/** What the guest's host object calls; bound by the exec that takes this context. */
export interface HostHooks {
  call(kind: QuickJSHandle, name: QuickJSHandle, args: QuickJSHandle): QuickJSHandle | undefined
  log(line: QuickJSHandle): void
  done(json: QuickJSHandle): void
  fail(json: QuickJSHandle): void
}

export interface PreparedContext {
  readonly engine: QuickJSWASMModule
  readonly runtime: QuickJSRuntime
  readonly ctx: QuickJSContext
  /** The guest's host object (the prelude keeps it in a closure; `dropped` counts capped log lines). */
  readonly hostObject: QuickJSHandle
  /** Starts as no-ops: a prelude that somehow called out before an exec bound them reaches nothing. */
  readonly hooks: HostHooks
}

export function prepareContext(engine: QuickJSWASMModule): PreparedContext {
  const runtime = engine.newRuntime()
  const ctx = runtime.newContext()
  const hooks: HostHooks = { call: () => undefined, log: () => {}, done: () => {}, fail: () => {} }
  const hostObject = ctx.newObject()
  for (const [key, fn] of [
    ['call', ctx.newFunction('call', (kind, name, args) => hooks.call(kind, name, args))],
    ['log', ctx.newFunction('log', (line) => hooks.log(line))],
    ['done', ctx.newFunction('done', (json) => hooks.done(json))],
    ['fail', ctx.newFunction('fail', (json) => hooks.fail(json))],
  ] as const) {
    ctx.setProp(hostObject, key, fn)
    fn.dispose()
  }
  ctx.setProp(ctx.global, HOST_GLOBAL, hostObject)
  const result = ctx.evalCode(PRELUDE_SOURCE, 'mcpx-prelude.js')
  if (result.error) {
    const error = ctx.dump(result.error)
    result.error.dispose()
    throw new Error(`sandbox prelude failed: ${JSON.stringify(error)}`)
  }
  result.value.dispose()
  return { engine, runtime, ctx, hostObject, hooks }
}
