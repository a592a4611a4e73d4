/**
 * Handing the daemon's clean file pages back to the kernel while it idles (Linux only). Most of an
 * idle daemon's resident memory is pages of its own executable: bun's machine code and the bundle's
 * bytecode, touched at start-up or by the last calls (README "Start-up and memory"). They are
 * unmodified copies of the file, so `madvise(MADV_PAGEOUT)` (madvise(2), Linux 5.4+) can reclaim
 * them at once instead of when memory runs short. The kernel leaves alone the pages another process
 * also maps (the code-mode sandboxes run the same executable), and a page a later call needs is read
 * back in (measured: the first call after a page-out takes a few ms more, once). Loaded with the
 * first page-out (idle-trim.ts pageOutLater).
 */
import { readFileSync } from 'node:fs'

const MIB = 1024 * 1024
/** Linux's advice value (include/uapi/asm-generic/mman-common.h). */
const MADV_PAGEOUT = 21
/** A /proc/self/maps line of a mapping backed by a file: start, end, inode and path. */
const FILE_MAPPING = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s+(\/.*)$/

type Madvise = (start: bigint, length: bigint, advice: number) => number

/** libc's madvise through bun:ffi, opened for one page-out (it runs once per quiet period); null where it cannot be asked. */
function openMadvise(): { madvise: Madvise; close(): void } | null {
  if (process.platform !== 'linux') return null
  try {
    const { dlopen, FFIType } = require('bun:ffi') as typeof import('bun:ffi')
    const libc = dlopen('libc.so.6', { madvise: { args: [FFIType.u64, FFIType.u64, FFIType.i32], returns: FFIType.i32 } })
    return { madvise: (start, length, advice) => libc.symbols.madvise(start, length, advice), close: () => libc.close() }
  } catch {
    // Not glibc (musl names its libc otherwise): nothing is paged out, the daemon works the same.
    return null
  }
}

export interface PageOutOptions {
  /** MiB advised per madvise call; the event loop runs between two (a request waits at most one slice). */
  readonly sliceMb: number
  /** Asked before each slice: true once activity resumed, when the pages are about to be used again. */
  stop(): boolean
}

/**
 * Advise the kernel to reclaim every file-backed mapping of this process, a slice at a time, and
 * say what happened (the daemon log's line).
 */
export async function pageOutFileMappings(options: PageOutOptions): Promise<string> {
  const libc = openMadvise()
  if (libc === null) return 'not available here'
  const slice = BigInt(Math.ceil(options.sliceMb * MIB))
  const started = performance.now()
  let advised = 0
  let refused = 0
  try {
    for (const line of readFileSync('/proc/self/maps', 'utf8').split('\n')) {
      const match = FILE_MAPPING.exec(line)
      if (match === null || match[3] === '0') continue
      const end = BigInt(`0x${match[2]}`)
      for (let start = BigInt(`0x${match[1]}`); start < end; start += slice) {
        if (options.stop()) return `stopped by new activity after ${advised} slices`
        const length = end - start < slice ? end - start : slice
        if (libc.madvise(start, length, MADV_PAGEOUT) === 0) advised++
        else refused++
        await new Promise((resolve) => setImmediate(resolve))
      }
    }
  } finally {
    libc.close()
  }
  return `${advised} slices of file mappings advised, ${refused} refused, in ${(performance.now() - started).toFixed(1)} ms`
}
