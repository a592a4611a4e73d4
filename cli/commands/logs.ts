/**
 * `mcpx logs [-f]`: the log of this config's daemon (timestamped lines: starts and stops, config
 * loads, host sessions opened and closed, upstream connects, upstream stderr). `-f` keeps
 * printing what is appended, across the daemon's size rotation, until interrupted.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs'
import { defineCommand } from 'citty'
import { McpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { layoutOf, loadContext } from '../context.ts'

const CHUNK_BYTES = 64 * 1024

export default defineCommand({
  meta: { name: 'logs', description: "Print the daemon's log for this config (-f: follow it)" },
  args: { ...commonArgs, follow: { type: 'boolean', alias: 'f', description: 'Keep printing new lines until interrupted' } },
  async run({ args }) {
    const ctx = loadContext(args)
    const file = layoutOf(ctx).daemonLog
    if (!existsSync(file) && !args.follow)
      throw new McpxError('NOT_FOUND', `no daemon log yet at ${file} (the daemon of this config has not run in the background)`, {
        log: file,
      })
    let offset = printFrom(file, 0)
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
