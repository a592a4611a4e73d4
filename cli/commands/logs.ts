/**
 * `mcpx logs [-n N] [-f]`: the log of this config's daemon (timestamped lines: starts and stops,
 * config loads, host sessions opened and closed, upstream connects, upstream stderr). `-n` starts
 * at the last N lines, as `tail -n` does; `-f` keeps printing what is appended, across the daemon's
 * size rotation, until interrupted.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs'
import { defineCommand } from 'citty'
import { McpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { layoutOf, loadContext } from '../context.ts'

const CHUNK_BYTES = 64 * 1024

export default defineCommand({
  meta: { name: 'logs', description: "Print the daemon's log for this config (-f: follow it)" },
  args: {
    ...commonArgs,
    follow: { type: 'boolean', alias: 'f', description: 'Keep printing new lines until interrupted' },
    lines: { type: 'string', alias: 'n', description: 'Start at the last N lines (default: the whole log)', valueHint: 'n' },
  },
  async run({ args }) {
    const ctx = loadContext(args)
    const file = layoutOf(ctx).daemonLog
    const lines = args.lines === undefined ? undefined : Number(args.lines)
    if (lines !== undefined && !(Number.isInteger(lines) && lines >= 0))
      throw new McpxError('USAGE', `--lines must be a whole number of lines; got "${args.lines}"`, { flag: 'lines' })
    if (!existsSync(file) && !args.follow)
      throw new McpxError('NOT_FOUND', `no daemon log yet at ${file} (the daemon of this config has not run in the background)`, {
        log: file,
      })
    let offset = printFrom(file, lines === undefined ? 0 : startOfLastLines(file, lines))
    if (!args.follow) return
    for (;;) {
      await Bun.sleep(ctx.settings.logsFollowPollMs)
      const size = sizeOf(file)
      // Rotated (copied to .1 and truncated): start again from the top of the fresh file.
      if (size < offset) offset = 0
      if (size > offset) offset = printFrom(file, offset)
    }
  },
})

function sizeOf(file: string): number {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}

/**
 * Where the last `count` lines of the file begin (0 when it has no more than that), found by reading
 * back from its end a chunk at a time: a log of megabytes is not read whole for its last lines.
 */
function startOfLastLines(file: string, count: number): number {
  const size = sizeOf(file)
  if (count === 0) return size
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return 0
  }
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES)
    // The newline that ends the last line does not start another one.
    let newlines = 0
    for (let end = size; end > 0; ) {
      const start = Math.max(0, end - buffer.length)
      readSync(fd, buffer, 0, end - start, start)
      for (let i = end - start - 1; i >= 0; i--) {
        if (buffer[i] !== NEWLINE || start + i === size - 1) continue
        if (++newlines === count) return start + i + 1
      }
      end = start
    }
    return 0
  } finally {
    closeSync(fd)
  }
}

const NEWLINE = 0x0a

/** Copy the file from `offset` to stdout; returns the new offset. */
function printFrom(file: string, offset: number): number {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return offset
  }
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES)
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, offset)
      if (read === 0) return offset
      process.stdout.write(buffer.subarray(0, read))
      offset += read
    }
  } finally {
    closeSync(fd)
  }
}
