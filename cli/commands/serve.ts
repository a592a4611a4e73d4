/**
 * `mcpx serve`: stdio MCP for hosts (`{"command": "mcpx", "args": ["serve"]}`), a thin relay to the
 * daemon's /mcp, which it starts when needed. `--passthrough <server>` offers one upstream as
 * itself. Streamable HTTP is the daemon's own /mcp, so `--transport http` names that address.
 */
import { defineCommand } from 'citty'
import { MCP_PATH, bridgeStdio } from '../../lib/daemon/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { suggest } from '../../lib/gateway/index.ts'
import { commonArgs } from '../args.ts'
import { layoutOf, loadConfiguredContext } from '../context.ts'
import { daemonClient } from './daemon.ts'

export default defineCommand({
  meta: { name: 'serve', description: 'Serve the gateway to an MCP host over stdio (via the daemon, started on demand)' },
  args: {
    ...commonArgs,
    passthrough: { type: 'string', description: 'Offer this one upstream server as itself', valueHint: 'server' },
    mode: { type: 'string', description: 'Surface: code-mode, raw or reactive (default: setting mcpMode)', valueHint: 'mode' },
    transport: { type: 'string', description: 'stdio (the only one: HTTP hosts use the daemon\'s /mcp)', default: 'stdio' },
  },
  async run({ args }) {
    const ctx = loadConfiguredContext(args, {}, { tolerant: true })
    // A host's environment is whatever it chose to pass: it never becomes the daemon's snapshot.
    const client = daemonClient(ctx, args, true, { shell: false })
    if (args.transport !== 'stdio') {
      const info = await client.ensureRunning()
      throw new McpxError('USAGE', `serve speaks stdio only; Streamable HTTP is served by the daemon at ${info.tcp.url}${MCP_PATH} (bearer token in ${layoutOf(ctx).token}) and on its Unix socket ${info.socket}`, {
        url: `${info.tcp.url}${MCP_PATH}`,
        socket: info.socket,
      })
    }
    if (args.passthrough !== undefined && !(args.passthrough in ctx.config.servers)) {
      const hint = suggest(args.passthrough, Object.keys(ctx.config.servers))
      throw new McpxError('NOT_FOUND', `no server named "${args.passthrough}"${hint.length ? ` (did you mean ${hint.join(', ')}?)` : ''}`, { server: args.passthrough })
    }
    const info = await client.ensureRunning()
    const bridge = bridgeStdio({
      settings: ctx.settings,
      socket: info.socket ?? layoutOf(ctx).socket,
      path:
        args.passthrough !== undefined
          ? `${MCP_PATH}?passthrough=${encodeURIComponent(args.passthrough)}`
          : args.mode !== undefined
            ? `${MCP_PATH}?mode=${encodeURIComponent(args.mode)}`
            : MCP_PATH,
      ensureDaemon: async () => void (await client.ensureRunning()),
    })
    await bridge.closed
  },
})
