/**
 * `mcpx sandbox-child` (hidden): the code-mode sandbox process. The sandbox pool spawns the same
 * executable with this subcommand and talks to it over IPC only; it is not for people to run.
 * `--exec CODE` instead runs CODE through a sandbox pool of this executable with no upstream tools
 * and prints `{value, logs, stats}` (a self-check of the compiled binary's sandbox path).
 */
import { defineCommand } from 'citty'
import { createSandboxPool, runSandboxChild } from '../../lib/codemode/index.ts'
import { loadContext } from '../context.ts'

export default defineCommand({
  meta: { name: 'sandbox-child', description: 'Internal: code-mode sandbox process (spawned by mcpx over IPC)', hidden: true },
  args: { exec: { type: 'string', description: 'Run this script in a fresh sandbox pool and print the result as JSON' } },
  async run({ args }) {
    if (args.exec === undefined) {
      await runSandboxChild()
      return
    }
    const ctx = loadContext({})
    await using pool = createSandboxPool(ctx.settings)
    const result = await pool.exec(args.exec, { namespaces: {}, call: async () => null, search: async () => [] })
    process.stdout.write(`${JSON.stringify(result)}\n`)
  },
})
