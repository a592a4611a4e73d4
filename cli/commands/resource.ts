/**
 * `mcpx resource list <server>` and `mcpx resource read <server> <uri> [--out FILE]`: an
 * upstream's resources (2025-11-25 server/resources.mdx). Text contents print as they are; a blob
 * is written to --out (decoded) or summarised, never dumped as base64 on a terminal.
 */
import { writeFileSync } from 'node:fs'
import { defineCommand } from 'citty'
import { McpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../configured-context.ts'
import { hostArgs } from '../host.ts'
import { repeatable } from '../parse.ts'
import { base64Size, decodeBase64, printJson } from '../render.ts'
import { openServer } from '../target.ts'

type JsonObject = Record<string, unknown>

const serverArg = { type: 'positional', description: 'Configured server name, or a URL', required: true } as const
const targetArgs = {
  stdio: { type: 'string', description: 'Ad-hoc stdio server: this command line (then SERVER is not given)', valueHint: 'command' },
  root: repeatable({ ...hostArgs.root }),
} as const

const list = defineCommand({
  meta: { name: 'list', description: "List a server's resources and resource templates" },
  args: { ...commonArgs, server: { ...serverArg, required: false }, ...targetArgs },
  async run({ args }) {
    const ctx = loadConfiguredContext(args)
    const session = await openServer(ctx, args, args.server, async () => '')
    try {
      const catalog = await session.catalog()
      if (ctx.json) return printJson({ resources: catalog.resources, resourceTemplates: catalog.resourceTemplates })
      const rows = [
        ...catalog.resources.map((r) => [String(r.uri), String(r.name ?? ''), String(r.mimeType ?? '')]),
        ...catalog.resourceTemplates.map((t) => [String(t.uriTemplate), `${String(t.name ?? '')} (template)`, String(t.mimeType ?? '')]),
      ]
      if (rows.length === 0) return void process.stderr.write(`${session.label} has no resources\n`)
      const width = Math.max(...rows.map((r) => r[0]!.length))
      const nameWidth = Math.max(...rows.map((r) => r[1]!.length))
      for (const [uri, name, mime] of rows)
        process.stdout.write(`${uri!.padEnd(width)}  ${mime ? `${name!.padEnd(nameWidth)}  ${mime}` : name}\n`)
    } finally {
      await session.close()
    }
  },
})

const read = defineCommand({
  meta: { name: 'read', description: 'Read one resource: text is printed, a blob goes to --out FILE (or is summarised)' },
  args: {
    ...commonArgs,
    server: serverArg,
    uri: { type: 'positional', description: 'The resource URI', required: false },
    out: { type: 'string', description: 'Write the (first) blob, decoded, to this file', valueHint: 'file' },
    ...targetArgs,
  },
  async run({ args }) {
    const ctx = loadConfiguredContext(args)
    const [server, uri] = args.stdio !== undefined ? [undefined, args.server] : [args.server, args.uri]
    if (uri === undefined) throw new McpxError('USAGE', 'resource read: missing URI (see `mcpx resource read --help`)')
    const session = await openServer(ctx, args, server, async () => '')
    try {
      const result = await session.request('resources/read', { uri })
      if (ctx.json) return printJson(result)
      const contents = Array.isArray(result.contents) ? (result.contents as JsonObject[]) : []
      let wrote = false
      for (const content of contents) {
        if (typeof content.text === 'string') {
          process.stdout.write(content.text.endsWith('\n') ? content.text : `${content.text}\n`)
          continue
        }
        if (typeof content.blob !== 'string') {
          // Neither text nor a blob: shown as the server sent it (as the daemon passes such contents on), not as an empty blob.
          process.stdout.write(`${JSON.stringify(content)}\n`)
          continue
        }
        const base64 = content.blob
        if (args.out !== undefined && !wrote) {
          const blob = decodeBase64(base64, `the blob of ${String(content.uri ?? uri)}`)
          writeOut(args.out, blob)
          wrote = true
          process.stderr.write(`mcpx: wrote ${blob.length} bytes (${String(content.mimeType ?? 'binary')}) to ${args.out}\n`)
        } else
          process.stdout.write(
            `[blob ${String(content.uri ?? uri)}, ${String(content.mimeType ?? 'binary')}, ${base64Size(base64)}; --out FILE writes it]\n`,
          )
      }
      // Said, so an empty answer is not mistaken for an empty text; a script asking for a file must not go on without it.
      if (contents.length === 0) process.stderr.write(`mcpx: ${uri} has no contents\n`)
      if (args.out !== undefined && !wrote)
        throw new McpxError('NOT_FOUND', `${uri} holds no blob to write to ${args.out} (its text, if any, is printed)`, { path: args.out })
    } finally {
      await session.close()
    }
  },
})

function writeOut(path: string, bytes: Buffer): void {
  try {
    writeFileSync(path, bytes)
  } catch (error) {
    throw new McpxError('USAGE', `cannot write ${path}: ${(error as Error).message}`, { path })
  }
}

export default defineCommand({
  meta: { name: 'resource', description: "Read an upstream's resources: mcpx resource list|read <server> [uri]" },
  subCommands: { list, read },
})
