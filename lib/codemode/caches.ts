/**
 * Code mode's process-wide caches: the only module-level mutable state of the room (pinned by
 * test/lib/module-state.test.ts). Each holds something that is the same for every sandbox and every
 * exec of this process and costs real time to build, so it is built once, on first use.
 */

/** Bun's JavaScript and TypeScript transpilers for prepareScript (transpile.ts): stateless between calls, options fixed. */
let jsTranspiler: Bun.Transpiler | undefined
let tsTranspiler: Bun.Transpiler | undefined

export function scriptTranspiler(loader: 'js' | 'ts'): Bun.Transpiler {
  if (loader === 'js') return (jsTranspiler ??= new Bun.Transpiler({ loader: 'js', target: 'browser', deadCodeElimination: false }))
  return (tsTranspiler ??= new Bun.Transpiler({ loader: 'ts', target: 'browser', deadCodeElimination: false, trimUnusedImports: false }))
}

/**
 * The compiled QuickJS wasm module (engine.ts): the embedded file is one per binary, compiling it
 * takes milliseconds, and a compiled module is immutable (every instance gets its own memory).
 */
let quickjsModule: Promise<WebAssembly.Module> | undefined

export function compiledQuickjs(compile: () => Promise<WebAssembly.Module>): Promise<WebAssembly.Module> {
  return (quickjsModule ??= compile())
}
