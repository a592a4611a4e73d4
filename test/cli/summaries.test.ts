/**
 * `mcpx --help` lists the top-level commands from cli/summaries.ts instead of loading every command
 * module: each summary must be exactly that command's own meta.description, and every visible
 * command must have one (a missing one would be loaded, so help stays right, only slower).
 */
import { describe, expect, test } from 'bun:test'
import type { CommandDef } from 'citty'
import { main } from '../../cli/main.ts'
import { SUMMARIES } from '../../cli/summaries.ts'

describe('top-level command summaries', () => {
  test("each equals the command's meta.description, and every visible command has one", async () => {
    const subCommands = main.subCommands as Record<string, () => Promise<CommandDef<any>>>
    const described: Record<string, string> = {}
    for (const [name, load] of Object.entries(subCommands)) {
      const command = await load()
      const meta = (typeof command.meta === 'function' ? await command.meta() : await command.meta) as
        | { description?: string; hidden?: boolean }
        | undefined
      if (meta?.hidden) continue
      described[name] = meta?.description ?? ''
    }
    expect(SUMMARIES).toEqual(described)
  })
})
