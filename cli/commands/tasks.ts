/**
 * `mcpx tasks list|get|cancel <server> [id]`: the tasks an upstream holds for mcpx (2025-11-25
 * basic/utilities/tasks.mdx: tasks/list, tasks/get, tasks/cancel), through the daemon.
 */
import { defineCommand } from 'citty'
import { McpxError, RPC, RpcError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../configured-context.ts'
import { printJson } from '../render.ts'
import { openServer, type ServerSession } from '../target.ts'

type JsonObject = Record<string, unknown>

const server = { type: 'positional', description: 'Configured server name, or a URL', required: true } as const
const id = { type: 'positional', description: 'Task id', required: true } as const

/** `method` on the server; a server without it (no tasks capability, or a 2026 one: its tasks extension lists none) says so plainly. */
async function ask(session: ServerSession, method: string, params: JsonObject): Promise<JsonObject> {
  try {
    return await session.request(method, params)
  } catch (error) {
    if (!(error instanceof RpcError && error.rpcCode === RPC.METHOD_NOT_FOUND)) throw error
    throw new McpxError('NOT_FOUND', `${session.label} does not serve ${method} (it answered -32601, method not found)`, {
      server: session.label,
      method,
    })
  }
}

function describeTask(task: JsonObject): string {
  return `${String(task.taskId)}  ${String(task.status)}${task.statusMessage ? `  ${String(task.statusMessage)}` : ''}${task.createdAt ? `  (created ${String(task.createdAt)})` : ''}`
}

const list = defineCommand({
  meta: { name: 'list', description: 'Tasks the server holds' },
  args: { ...commonArgs, server },
  async run({ args }) {
    const ctx = loadConfiguredContext(args)
    const session = await openServer(ctx, args, args.server, async () => '')
    try {
      const result = await ask(session, 'tasks/list', {})
      if (ctx.json) return printJson(result)
      const tasks = (result.tasks ?? []) as JsonObject[]
      if (tasks.length === 0) return void process.stderr.write(`${session.label} holds no tasks\n`)
      for (const task of tasks) process.stdout.write(`${describeTask(task)}\n`)
    } finally {
      await session.close()
    }
  },
})

const get = defineCommand({
  meta: { name: 'get', description: "One task's status" },
  args: { ...commonArgs, server, id },
  async run({ args }) {
    const ctx = loadConfiguredContext(args)
    const session = await openServer(ctx, args, args.server, async () => '')
    try {
      const result = await ask(session, 'tasks/get', { taskId: args.id })
      if (ctx.json) return printJson(result)
      process.stdout.write(`${describeTask(result)}\n`)
    } finally {
      await session.close()
    }
  },
})

const cancel = defineCommand({
  meta: { name: 'cancel', description: 'Cancel one task' },
  args: { ...commonArgs, server, id },
  async run({ args }) {
    const ctx = loadConfiguredContext(args)
    const session = await openServer(ctx, args, args.server, async () => '')
    try {
      const result = await ask(session, 'tasks/cancel', { taskId: args.id })
      if (ctx.json) return printJson(result)
      process.stdout.write(`${describeTask(result)}\n`)
    } finally {
      await session.close()
    }
  },
})

export default defineCommand({
  meta: { name: 'tasks', description: 'Tasks an upstream holds: mcpx tasks list|get|cancel <server> [id]' },
  subCommands: { list, get, cancel },
})
