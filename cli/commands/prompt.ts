/**
 * `mcpx prompt list <server>` and `mcpx prompt get <server.prompt | server prompt> [key=value …]`: an upstream's
 * prompts (2025-11-25 server/prompts.mdx). Prompt arguments are strings; unknown and missing
 * ones are named before the round trip.
 */
import { defineCommand } from 'citty'
import { McpxError } from '../../lib/errors/index.ts'
import { splitQualified, suggest } from '../../lib/gateway/index.ts'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../configured-context.ts'
import { hostArgs } from '../host.ts'
import { repeatable, variadic } from '../parse.ts'
import { printJson } from '../render.ts'
import { isUrl, joinedTarget, openServer } from '../target.ts'

type JsonObject = Record<string, unknown>

const targetArgs = {
  stdio: { type: 'string', description: 'Ad-hoc stdio server: this command line', valueHint: 'command' },
  root: repeatable({ ...hostArgs.root }),
} as const

const list = defineCommand({
  meta: { name: 'list', description: "List a server's prompts with their arguments" },
  args: { ...commonArgs, server: { type: 'positional', description: 'Configured server name, or a URL', required: false }, ...targetArgs },
  async run({ args }) {
    const ctx = loadConfiguredContext(args)
    const session = await openServer(ctx, args, args.server, async () => '')
    try {
      const { prompts } = await session.catalog()
      if (ctx.json) return printJson(prompts)
      if (prompts.length === 0) return void process.stderr.write(`${session.label} has no prompts\n`)
      for (const prompt of prompts) {
        const params = ((prompt.arguments ?? []) as JsonObject[]).map((a) => (a.required ? String(a.name) : `[${String(a.name)}]`))
        const description = typeof prompt.description === 'string' ? `  ${prompt.description.split('\n')[0]}` : ''
        process.stdout.write(`${String(prompt.name)}(${params.join(', ')})${description}\n`)
      }
    } finally {
      await session.close()
    }
  },
})

const get = defineCommand({
  meta: {
    name: 'get',
    description: 'Get one prompt with arguments: mcpx prompt get <server.prompt> [key=value ...] (or <server> <prompt>)',
  },
  args: {
    ...commonArgs,
    target: variadic({
      type: 'positional',
      description: 'server.prompt (or the server, then the prompt), or a URL followed by the prompt name, or the name with --stdio',
      required: true,
    }),
    ...targetArgs,
  },
  async run({ args }) {
    const ctx = loadConfiguredContext(args)
    const words = args._ as string[]
    let server: string | undefined
    let name: string
    let tokens: string[]
    if (args.stdio !== undefined) [name, tokens] = [words[0]!, words.slice(1)]
    else if (isUrl(words[0]!)) {
      if (words[1] === undefined) throw new McpxError('USAGE', `prompt get ${words[0]}: name the prompt after the URL`)
      ;[server, name, tokens] = [words[0], words[1], words.slice(2)]
    } else {
      const [target, ...rest] = joinedTarget(words) as [string, ...string[]]
      const dot = target.indexOf('.')
      if (dot <= 0 || dot === target.length - 1)
        throw new McpxError(
          'USAGE',
          `"${target}" is not <server>.<prompt> (the first dot separates the server from the prompt; \`mcpx prompt list ${dot > 0 ? target.slice(0, dot) : target}\` lists them)`,
          { name: target },
        )
      const split = splitQualified(target)
      ;[server, name, tokens] = [split.server, split.tool, rest]
    }
    const session = await openServer(ctx, args, server, async () => '')
    try {
      const { prompts } = await session.catalog()
      const prompt = prompts.find((p) => p.name === name)
      if (prompt === undefined) {
        const hint = suggest(
          name,
          prompts.map((p) => String(p.name)),
        )
        throw new McpxError(
          'NOT_FOUND',
          `${session.label} has no prompt "${name}"${hint.length ? ` (did you mean ${hint.join(', ')}?)` : ''}`,
          { prompt: name, suggestions: hint },
        )
      }
      const declared = (prompt.arguments ?? []) as JsonObject[]
      const values: Record<string, string> = {}
      for (const token of tokens) {
        const eq = token.indexOf('=')
        if (eq <= 0) throw new McpxError('USAGE', `argument "${token}" is not key=value`, { token })
        const key = token.slice(0, eq)
        if (!declared.some((a) => a.name === key)) {
          const hint = suggest(
            key,
            declared.map((a) => String(a.name)),
          )
          throw new McpxError(
            'USAGE',
            `prompt "${name}" has no argument "${key}"${hint.length ? ` (did you mean ${hint.join(', ')}?)` : ''}; it takes: ${declared.map((a) => a.name).join(', ') || 'none'}`,
            { field: key },
          )
        }
        if (key in values) throw new McpxError('USAGE', `argument "${key}" given more than once`, { field: key })
        values[key] = token.slice(eq + 1)
      }
      const missing = declared.filter((a) => a.required && !(String(a.name) in values)).map((a) => String(a.name))
      if (missing.length)
        throw new McpxError('USAGE', `missing required argument${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`, {
          fields: missing,
        })
      const result = await session.request('prompts/get', { name, arguments: values })
      if (ctx.json) return printJson(result)
      if (typeof result.description === 'string') process.stderr.write(`${result.description}\n`)
      for (const message of (result.messages ?? []) as JsonObject[]) {
        const content = (message.content ?? {}) as JsonObject
        const body =
          content.type === 'text'
            ? String(content.text)
            : content.type === 'resource'
              ? `[resource ${String((content.resource as JsonObject)?.uri)}]\n${String((content.resource as JsonObject)?.text ?? '')}`
              : `[${String(content.type)}]`
        process.stdout.write(`${String(message.role)}: ${body}\n`)
      }
    } finally {
      await session.close()
    }
  },
})

export default defineCommand({
  meta: { name: 'prompt', description: "Use an upstream's prompts: mcpx prompt list|get" },
  subCommands: { list, get },
})
