/**
 * `mcpx serve`: stdio MCP for hosts (`{"command": "mcpx", "args": ["serve"]}`), a byte pipe into the
 * daemon's own stdio engine over its stream channel (lib/daemon/serve-shim.ts), starting the daemon
 * when needed. `--passthrough <server>` offers one upstream as itself, `--mode` picks the surface.
 * Everything wrong with the command line is said on stderr before the channel opens (exit 2);
 * stdout carries only the protocol. Streamable HTTP is the daemon's own /mcp, so `--transport http`
 * names that address.
 */
import { defineCommand } from 'citty'
import { MCP_PATH, parseSurfaceMode, runServeShim } from '../../lib/daemon/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { suggest } from '../../lib/gateway/index.ts'
import { commonArgs } from '../args.ts'
import { layoutOf } from '../context.ts'
import { loadConfiguredContext } from '../configured-context.ts'
import { connectRetry, daemonClient } from './daemon.ts'

export default defineCommand({
  meta: { name: 'serve', description: 'Serve the gateway to an MCP host over stdio (via the daemon, started on demand)' },
  args: {
    ...commonArgs,
    passthrough: { type: 'string', description: 'Offer this one upstream server as itself', valueHint: 'server' },
    mode: { type: 'string', description: 'Surface: code-mode, raw or reactive (default: setting mcpMode)', valueHint: 'mode' },
    transport: { type: 'string', description: "stdio (the only one: HTTP hosts use the daemon's /mcp)", default: 'stdio' },
  },
  async run({ args }) {
    const ctx = loadConfiguredContext(args, {}, { tolerant: true })
    // A host's environment is whatever it chose to pass: it never becomes the daemon's snapshot.
    const client = daemonClient(ctx, args, true, { shell: false })
    if (args.transport !== 'stdio') {
      const info = await client.ensureRunning()
      throw new McpxError(
        'USAGE',
        `serve speaks stdio only; Streamable HTTP is served by the daemon at ${info.tcp.url}${MCP_PATH} (bearer token in ${layoutOf(ctx).token}) and on its Unix socket ${info.socket}`,
        {
          url: `${info.tcp.url}${MCP_PATH}`,
          socket: info.socket,
        },
      )
    }
    if (args.mode !== undefined) parseSurfaceMode(args.mode, '--mode')
    if (args.passthrough !== undefined && !(args.passthrough in ctx.config.servers)) {
      const hint = suggest(args.passthrough, Object.keys(ctx.config.servers))
      throw new McpxError('NOT_FOUND', `no server named "${args.passthrough}"${hint.length ? ` (did you mean ${hint.join(', ')}?)` : ''}`, {
        server: args.passthrough,
      })
    }
    const shim = await runServeShim({
      settings: ctx.settings,
      layout: layoutOf(ctx),
      surface: {
        ...(args.passthrough !== undefined && { passthrough: args.passthrough }),
        ...(args.mode !== undefined && { mode: args.mode }),
      },
      ensureDaemon: () => client.ensureRunning(),
      connectRetry: connectRetry(ctx.settings),
    })
    const { outputBroken } = await shim.closed
    // stdin may still be open (stdout broke, or the grace ran out): end here once stdout is flushed.
    if (!outputBroken && process.stdout.writableNeedDrain) await new Promise((resolve) => process.stdout.once('drain', resolve))
    process.exit()
  },
})
