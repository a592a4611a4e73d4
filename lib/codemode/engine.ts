/**
 * Loads QuickJS (quickjs-emscripten-core, release-sync build) inside the sandbox child. The wasm is
 * imported as a file so `bun build --compile` embeds it; it is compiled once, and every exec gets a
 * FRESH instance with its own `WebAssembly.Memory` whose `maximum` is the heap cap: QuickJS's own
 * setMemoryLimit does not cap total memory in the emscripten builds (measured: a 64 MB limit grew to the 2 GB
 * wasm maximum), a wasm Memory maximum does. One instance is
 * Spare instances are kept pre-built so an exec does not wait for instantiation.
 */
import wasmPath from '@jitl/quickjs-wasmfile-release-sync/wasm' with { type: 'file' }
import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync'
import { type QuickJSWASMModule, newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core'
import { compiledQuickjs } from './caches.ts'
import { type PreparedContext, prepareContext } from './prepared-context.ts'

const WASM_PAGE_BYTES = 64 * 1024
/** The emscripten build asks for 16 MiB initially (its INITIAL_MEMORY); the cap cannot be below it. */
const INITIAL_MEMORY_BYTES = 16 * 1024 * 1024

function compileOnce(): Promise<WebAssembly.Module> {
  return compiledQuickjs(() =>
    Bun.file(wasmPath)
      .arrayBuffer()
      .then((bytes) => WebAssembly.compile(bytes)),
  )
}

/** A new QuickJS instance whose whole heap (wasm memory) can never exceed `memoryMb`. */
async function newIsolatedEngine(memoryMb: number): Promise<QuickJSWASMModule> {
  const wasmModule = await compileOnce()
  const maxBytes = Math.max(INITIAL_MEMORY_BYTES, Math.floor(memoryMb) * 1024 * 1024)
  // Starts small and grows: script-run.ts reads the current size to tell an out-of-memory death apart.
  const wasmMemory = new WebAssembly.Memory({ initial: INITIAL_MEMORY_BYTES / WASM_PAGE_BYTES, maximum: maxBytes / WASM_PAGE_BYTES })
  return newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule, wasmMemory }))
}

/** Engines kept built ahead of demand, so back-to-back execs do not wait for instantiation. */
const SPARE_ENGINES = 2

/** Hands out fresh engines, building replacements after the caller's synchronous start. */
export class EngineSupply {
  readonly #spares: Array<Promise<PreparedContext>> = []
  #refillScheduled = false
  constructor(private readonly memoryMb: number) {}

  /** A never-used engine with its context and prelude ready; schedules its replacement. */
  async take(): Promise<PreparedContext> {
    const engine = this.#spares.shift() ?? this.#build()
    this.#scheduleRefill()
    return engine
  }

  /** Build the spares now (the child reports ready after this). */
  async warm(): Promise<void> {
    while (this.#spares.length < SPARE_ENGINES) this.#spares.push(this.#build())
    await Promise.all(this.#spares)
  }

  #build(): Promise<PreparedContext> {
    const engine = newIsolatedEngine(this.memoryMb).then(prepareContext)
    // A failure resurfaces from take(); never as an unhandled rejection.
    engine.catch(() => {})
    return engine
  }

  #scheduleRefill(): void {
    if (this.#refillScheduled) return
    this.#refillScheduled = true
    setImmediate(() => {
      this.#refillScheduled = false
      if (this.#spares.length >= SPARE_ENGINES) return
      this.#spares.push(this.#build())
      // One at a time, each after the current turn, so a burst of execs is not starved by instantiation.
      if (this.#spares.length < SPARE_ENGINES) this.#scheduleRefill()
    })
  }
}
