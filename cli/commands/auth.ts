/**
 * `mcpx auth login|logout|status <server>`: OAuth credentials of a configured HTTP upstream, kept
 * in the mcpx home (`<home>/oauth/`, 0600) where the daemon's pool finds them. Login is the one
 * interactive step (the daemon never opens a browser): a loopback listener on 127.0.0.1 receives
 * the redirect; the URL goes to stderr and, on a terminal, to the system browser. Tokens are never printed.
 */
import { defineCommand } from 'citty'
import { type CredentialRecord, createFileCredentialStore, createUpstreamAuth, oauthStoreDir } from '../../lib/auth/index.ts'
import type { ServerConfig } from '../../lib/config/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { type ConfiguredContext, loadConfiguredContext } from '../configured-context.ts'
import { printJson } from '../render.ts'

type HttpServer = ServerConfig & { target: Extract<ServerConfig['target'], { kind: 'http' }> }

const serverArg = { type: 'positional', required: true, description: 'Name of an HTTP server in the config', valueHint: 'server' } as const

const login = defineCommand({
  meta: {
    name: 'login',
    description: "Authorize mcpx at the server's authorization server (opens a browser on a terminal) and store the tokens",
  },
  args: {
    server: serverArg,
    browser: {
      type: 'boolean',
      default: true,
      description: 'Open the authorization URL in a browser when on a terminal (--no-browser: only print it)',
    },
    ...commonArgs,
  },
  async run({ args }) {
    const ctx = loadConfiguredContext(args)
    const server = httpServer(ctx, args.server)
    const provider = createUpstreamAuth({
      serverUrl: server.target.url,
      settings: ctx.settings,
      home: ctx.paths.home,
      ...(server.target.oauth !== undefined && { config: server.target.oauth }),
      interactive: { open: (url) => showAuthorizationUrl(server.name, url, args.browser !== false) },
    })
    await provider.login()
    const status = describe(server, await storeOf(ctx).load(server.target.url))
    if (ctx.json) return printJson(status)
    process.stdout.write(`logged in to "${server.name}" at ${status.issuer ?? 'its authorization server'}${expiryText(status)}\n`)
  },
})

const logout = defineCommand({
  meta: { name: 'logout', description: 'Forget the stored OAuth client and tokens of a server' },
  args: { server: serverArg, ...commonArgs },
  async run({ args }) {
    const ctx = loadConfiguredContext(args)
    const server = httpServer(ctx, args.server)
    const store = storeOf(ctx)
    const had = (await store.load(server.target.url)) !== undefined
    await store.remove(server.target.url)
    if (ctx.json) return printJson({ server: server.name, removed: had })
    process.stdout.write(had ? `removed the stored credentials of "${server.name}"\n` : `"${server.name}" had no stored credentials\n`)
  },
})

const status = defineCommand({
  meta: {
    name: 'status',
    description: 'Whether credentials are stored for a server (or every HTTP server): issuer and expiry, never the tokens',
  },
  args: {
    server: { ...serverArg, required: false, description: 'Name of an HTTP server (default: every HTTP server in the config)' },
    ...commonArgs,
  },
  async run({ args }) {
    const ctx = loadConfiguredContext(args)
    const servers = args.server ? [httpServer(ctx, args.server)] : Object.values(ctx.config.servers).filter(isHttp)
    const store = storeOf(ctx)
    const statuses = await Promise.all(servers.map(async (server) => describe(server, await store.load(server.target.url))))
    if (ctx.json) return printJson(args.server ? statuses[0] : statuses)
    if (statuses.length === 0) process.stdout.write('no HTTP servers in the config\n')
    for (const s of statuses) {
      process.stdout.write(
        s.loggedIn ? `${s.server}: logged in at ${s.issuer}${expiryText(s)}\n` : `${s.server}: not logged in (${s.url})\n`,
      )
    }
  },
})

export default defineCommand({
  meta: { name: 'auth', description: 'OAuth credentials for HTTP upstreams: login, logout, status' },
  subCommands: { login, logout, status },
})

export interface AuthStatus {
  server: string
  url: string
  loggedIn: boolean
  issuer?: string
  tokenType?: string
  scope?: string
  /** ISO time the access token expires, when the server said. */
  expiresAt?: string
  expired?: boolean
  refreshable?: boolean
}

function describe(server: HttpServer, record: CredentialRecord | undefined): AuthStatus {
  const tokens = record?.issuer ? record.issuers[record.issuer]?.tokens : undefined
  const base = { server: server.name, url: server.target.url }
  if (!tokens) return { ...base, loggedIn: false }
  return {
    ...base,
    loggedIn: true,
    issuer: record!.issuer!,
    tokenType: tokens.tokenType,
    ...(tokens.scope && { scope: tokens.scope }),
    ...(tokens.expiresAt !== undefined && { expiresAt: new Date(tokens.expiresAt).toISOString(), expired: tokens.expiresAt <= Date.now() }),
    refreshable: tokens.refreshToken !== undefined,
  }
}

function expiryText(status: AuthStatus): string {
  const refresh = status.refreshable ? ', refreshable' : ''
  if (status.expiresAt === undefined) return `; the token has no stated expiry${refresh}`
  return `; the access token ${status.expired ? 'expired' : 'expires'} ${status.expiresAt}${refresh}`
}

function storeOf(ctx: ConfiguredContext) {
  return createFileCredentialStore(oauthStoreDir(ctx.paths.home))
}

function isHttp(server: ServerConfig): server is HttpServer {
  return server.target.kind === 'http'
}

function httpServer(ctx: ConfiguredContext, name: string): HttpServer {
  const server = ctx.config.servers[name]
  if (!server) {
    const known = Object.values(ctx.config.servers)
      .filter(isHttp)
      .map((s) => s.name)
    throw new McpxError('NOT_FOUND', `no server "${name}" in the config${known.length ? ` (HTTP servers: ${known.join(', ')})` : ''}`, {
      server: name,
    })
  }
  if (!isHttp(server)) throw new McpxError('USAGE', `server "${name}" runs over stdio; OAuth is for HTTP servers`, { server: name })
  return server
}

/** The URL always goes to stderr (stdout stays clean); a browser only for a person at a terminal. */
function showAuthorizationUrl(server: string, url: string, browser: boolean): void {
  process.stderr.write(`mcpx: open this URL to authorize mcpx for "${server}":\n${url}\n`)
  if (!browser || !process.stderr.isTTY || !process.stdin.isTTY) return
  const opener = process.platform === 'darwin' ? Bun.which('open') : Bun.which('xdg-open')
  if (!opener) return
  try {
    const child = Bun.spawn([opener, url], { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' })
    child.unref()
  } catch {
    // No browser: the printed URL is the way.
  }
}
