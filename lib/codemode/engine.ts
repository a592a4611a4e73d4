/**
 * Loads QuickJS (quickjs-emscripten-core, release-sync build) inside the sandbox child. The wasm is
 * imported as a file so `bun build --compile` embeds it; it is compiled once, and every exec gets a
 * FRESH instance with its own `WebAssembly.Memory` whose `maximum` is the heap cap: QuickJS's own
 * setMemoryLimit does not hold (codemode-findings §1.2), a wasm Memory maximum does. One instance is
 * kept pre-built so an exec does not wait for instantiation.
 */
import wasmPath from '@jitl/quickjs-wasmfile-release-sync/wasm' with { type: 'file' }
import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync'
import { type QuickJSWASMModule, newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core'

const WASM_PAGE_BYTES = 64 * 1024
/** The emscripten build asks for 16 MiB initially (its INITIAL_MEMORY); the cap cannot be below it. */
const INITIAL_MEMORY_BYTES = 16 * 1024 * 1024

let compiled: Promise<WebAssembly.Module> | undefined

function compileOnce(): Promise<WebAssembly.Module> {
  compiled ??= Bun.file(wasmPath)
    .arrayBuffer()
    .then((bytes) => WebAssembly.compile(bytes))
  return compiled
}

/** A new QuickJS instance whose whole heap (wasm memory) can never exceed `memoryMb`. */
export async function newIsolatedEngine(memoryMb: number): Promise<QuickJSWASMModule> {
  const wasmModule = await compileOnce()
  const maxBytes = Math.max(INITIAL_MEMORY_BYTES, Math.floor(memoryMb) * 1024 * 1024)
  // Starts small and grows: script-run.ts reads the current size to tell an out-of-memory death apart.
  const wasmMemory = new WebAssembly.Memory({ initial: INITIAL_MEMORY_BYTES / WASM_PAGE_BYTES, maximum: maxBytes / WASM_PAGE_BYTES })
  return newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule, wasmMemory }))
}

/** Hands out fresh engines, building the next one while the current exec runs. */
export class EngineSupply {
  #next: Promise<QuickJSWASMModule> | undefined
  constructor(private readonly memoryMb: number) {}

  /** A never-used engine; starts building its successor. */
  async take(): Promise<QuickJSWASMModule> {
    const next = this.#next ?? newIsolatedEngine(this.memoryMb)
    this.#next = undefined
    const engine = await next
    // Build the successor after the caller's synchronous start, not in its way.
    setImmediate(() => {
      if (this.#next) return
      this.#next = newIsolatedEngine(this.memoryMb)
      // A failure here resurfaces on the next take().
      this.#next.catch(() => {})
    })
    return engine
  }

  /** Build the first engine now (the child reports ready after this). */
  async warm(): Promise<void> {
    this.#next ??= newIsolatedEngine(this.memoryMb)
    await this.#next
  }
}
