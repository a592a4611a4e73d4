/**
 * connect(): spawn or reach a server and settle era, revision and transport. Modern is probed first
 * with `server/discover`; the fallback to legacy (and, over HTTP, to HTTP+SSE) follows 2026-07-28 per
 * transport (see connect()). The verdict is cached per configuration (verdict-cache.ts), so later
 * starts skip the probe.
 */
import { McpxError, RpcError, asMcpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import { Peer } from '../session/index.ts'
import { type Transport, type TransportKind, bodyLine } from '../transport/index.ts'
import { HTTP_STATUS, LATEST_LEGACY, type Revision, eraOf, isModernRevision } from '../wire/index.ts'
import { McpClient } from './mcp-client.ts'
import { discoverModern, initializeLegacy, isModernError, pickModern } from './handshake.ts'
import { serveServerRequests } from './input.ts'
import { type StdioLaunch, type TransportFactory, defaultTransports } from './open-transport.ts'
import {
  type ConnectOptions,
  type HttpTarget,
  type ServerIdentity,
  type StdioTarget,
  type Target,
  type TimingStep,
  isHttpTarget,
} from './connect-options.ts'
import { readVerdict, verdictKey, writeVerdict } from './verdict-cache.ts'
import { type WireState, headersFor } from './wire-state.ts'

export const MCPX_CLIENT_INFO = { name: 'mcpx', version: '0.1.0' }

/** Internal seam for tests: substitute transports. */
export interface ConnectInternals {
  transports?: TransportFactory
}

/**
 * - stdio (2026-07-28 basic/transports/stdio.mdx "Backward Compatibility"): a DiscoverResult or a recognised modern error →
 *   modern; any other error, or silence for `probeTimeoutMs` → legacy `initialize` (never keyed
 *   to one error code).
 * - HTTP (2026-07-28 basic/transports/streamable-http.mdx "Backward Compatibility"): 400/404/405 (or a JSON-RPC error) that is not a
 *   recognised modern error → legacy `initialize`; if that POST fails with 400/404/405 too →
 *   HTTP+SSE (GET, `endpoint` event). 401/403 → AUTH.
 */
export async function connect(target: Target, options: ConnectOptions & ConnectInternals): Promise<McpClient> {
  const run = new ConnectRun(target, options)
  return isHttpTarget(target) ? run.http(target) : run.stdio()
}

class ConnectRun {
  readonly timings: TimingStep[] = []
  readonly factory: TransportFactory
  readonly key: string
  readonly warn: (message: string) => void

  constructor(
    readonly target: Target,
    readonly options: ConnectOptions & ConnectInternals,
  ) {
    this.factory = options.transports ?? defaultTransports
    this.key = verdictKey(target)
    this.warn = options.onWarning ?? ((message) => log.warn(message))
  }

  get settings() {
    return this.options.settings
  }

  async stdio(): Promise<McpClient> {
    const { state, peer } = await this.#open('stdio', () => this.factory.stdio(this.#launch(), this.settings))
    try {
      const pinned = this.options.revision
      if (pinned) return this.#done(peer, state, await this.#step(`${eraOf(pinned)} handshake`, () => this.#handshake(peer, state, pinned)))
      if (this.options.era === 'legacy')
        return this.#done(peer, state, await this.#step('initialize', () => initializeLegacy(peer, state, this.#offer())))
      if (this.options.era === 'modern')
        return this.#done(peer, state, await this.#step('server/discover', () => discoverModern(peer, state)))
      const cached = this.#cached()
      if (cached?.era === 'legacy') {
        const legacy = await this.#try('initialize (cached verdict)', () => initializeLegacy(peer, state, this.#offer()))
        if (legacy) return this.#done(peer, state, legacy)
      }
      // A recognised modern error means "modern, but we cannot agree": never fall back on it.
      const modern = await this.#try(
        'server/discover',
        () => discoverModern(peer, state, { timeoutMs: this.settings.probeTimeoutMs }),
        (error) => isModernError(error) || (error instanceof McpxError && error.code === 'ERA'),
      )
      if (modern) return this.#done(peer, state, modern)
      if (!peer.closed) {
        try {
          return await this.#done(peer, state, await this.#step('initialize', () => initializeLegacy(peer, state, this.#offer())))
        } catch (error) {
          // A modern-only server that was merely slow to answer the probe names its versions in the
          // initialize error (2026-07-28 basic/versioning.mdx "Backward Compatibility with Initialization-Based
          // Versions"): it is modern after all.
          if (!pickModern((error instanceof RpcError ? (error.rpcData as Record<string, unknown> | undefined) : undefined)?.supported))
            throw error
          return await this.#done(
            peer,
            state,
            await this.#step('server/discover (named by initialize error)', () => discoverModern(peer, state)),
          )
        }
      }
    } catch (error) {
      await peer.close().catch(() => {})
      throw this.#explain(error, peer)
    }
    // Some legacy servers exit on a first message that is not initialize: start it again and
    // go straight to the legacy handshake (2026-07-28 basic/transports/stdio.mdx "Backward Compatibility" leaves the
    // probe's failure mode open).
    const again = await this.#open('stdio', () => this.factory.stdio(this.#launch(), this.settings))
    try {
      return await this.#done(
        again.peer,
        again.state,
        await this.#step('initialize (restarted)', () => initializeLegacy(again.peer, again.state, this.#offer())),
      )
    } catch (error) {
      await again.peer.close().catch(() => {})
      throw this.#explain(error, again.peer)
    }
  }

  /** The stdio target with the caller's parent environment (never part of the verdict key). */
  #launch(): StdioLaunch {
    const parentEnv = this.options.parentEnv
    return { ...(this.target as StdioTarget), ...(parentEnv !== undefined && { parentEnv }) }
  }

  async http(target: HttpTarget): Promise<McpClient> {
    const pinned = this.options.revision
    if (target.transport === 'http+sse' || (pinned === '2024-11-05' && target.transport !== 'streamable-http')) return this.#sse(target)
    const cached = this.#cached()
    if (cached?.transport === 'http+sse' && target.transport === undefined) return this.#sse(target)
    const { state, peer } = await this.#open('streamable-http', () =>
      this.factory.http('streamable-http', target, this.settings, this.options.auth),
    )
    let refusedPost: McpxError | undefined
    try {
      if ((pinned && isModernRevision(pinned)) || this.options.era === 'modern')
        return this.#done(
          peer,
          state,
          await this.#step('server/discover', () =>
            discoverModern(peer, state, { pinned: pinned && isModernRevision(pinned) ? pinned : undefined }),
          ),
        )
      const probeModern = !pinned && this.options.era !== 'legacy'
      const modern = () =>
        this.#try(
          'server/discover',
          () => discoverModern(peer, state),
          (error) => !isLegacyAnswer(error),
        )
      if (probeModern && cached?.era !== 'legacy') {
        const identity = await modern()
        if (identity) return this.#done(peer, state, identity)
      }
      // HTTP+SSE only when the POST itself is refused (400/404/405: 2026-07-28 basic/transports/streamable-http.mdx
      // "HTTP+SSE Transport"); a JSON-RPC error to initialize is the server's answer and is reported as such.
      const legacy = await this.#try(
        'initialize',
        () => initializeLegacy(peer, state, this.#offer(), { pinned: Boolean(pinned) }),
        (error) => {
          const refused = isRefusedPost(error)
          if (refused) refusedPost = error as McpxError
          return target.transport === 'streamable-http' && !(probeModern && cached?.era === 'legacy') ? true : !refused
        },
      )
      if (legacy) return this.#done(peer, state, legacy)
      // A cached "legacy" that no longer holds: re-probe modern before trying the older transport.
      if (probeModern && cached?.era === 'legacy') {
        const identity = await modern()
        if (identity) return this.#done(peer, state, identity)
        if (target.transport === 'streamable-http')
          throw new McpxError('CONNECT', `${target.url} answered neither server/discover nor initialize`, { url: target.url })
      }
    } catch (error) {
      await peer.close().catch(() => {})
      throw this.#explain(error, peer)
    }
    await peer.close().catch(() => {})
    return this.#sse(target).catch((error: unknown) => Promise.reject(noEndpoint(target.url, refusedPost, error) ?? error))
  }

  async #sse(target: HttpTarget): Promise<McpClient> {
    const { state, peer } = await this.#open('http+sse', () => this.factory.http('http+sse', target, this.settings, this.options.auth))
    try {
      return this.#done(
        peer,
        state,
        await this.#step('initialize (http+sse)', () =>
          initializeLegacy(peer, state, this.#offer(), { pinned: Boolean(this.options.revision) }),
        ),
      )
    } catch (error) {
      await peer.close().catch(() => {})
      throw this.#explain(error, peer)
    }
  }

  #offer(): Revision {
    const pinned = this.options.revision
    return pinned && !isModernRevision(pinned) ? pinned : (this.options.legacyOffer ?? LATEST_LEGACY)
  }

  async #handshake(peer: Peer, state: WireState, pinned: Revision): Promise<ServerIdentity> {
    return isModernRevision(pinned) ? discoverModern(peer, state, { pinned }) : initializeLegacy(peer, state, pinned, { pinned: true })
  }

  #cached() {
    if (this.options.noCache || this.options.revision || this.options.era) return undefined
    return readVerdict(this.key, this.settings.eraVerdictTtlMs, this.options.cacheDir)
  }

  async #open(kind: TransportKind, make: () => Transport): Promise<{ state: WireState; peer: Peer }> {
    const state: WireState = {
      transport: kind,
      clientInfo: this.options.clientInfo ?? MCPX_CLIENT_INFO,
      handlers: this.options.handlers ?? {},
      extraCapabilities: this.options.capabilities,
      tools: new Map(),
    }
    const transport = await this.#step(`open ${kind}`, async () => make())
    const peer = new Peer(transport, {
      requestTimeoutMs: this.settings.requestTimeoutMs,
      headersFor: (message) => headersFor(state, message),
      // 2026: server→client questions travel as input_required, and the client writes no responses.
      answerRequests: () => state.era !== 'modern',
    })
    serveServerRequests(peer, state.handlers, () => state.era ?? 'legacy')
    await this.#step(`start ${kind}`, () => peer.start())
    return { state, peer }
  }

  async #done(peer: Peer, state: WireState, identity: ServerIdentity): Promise<McpClient> {
    if (!this.options.noCache && !this.options.revision && !this.options.era) {
      writeVerdict(this.key, { era: identity.era, transport: identity.transport, revision: identity.revision }, this.options.cacheDir)
    }
    state.era = identity.era
    state.revision = identity.revision
    // Legacy Streamable HTTP: servers send requests and notifications not tied to a POST on the
    // standalone GET stream (2025-11-25 basic/transports.mdx "Listening for Messages from the Server"); without it an
    // unrelated elicitation/create is never seen.
    const stream = peer.transport as Partial<{ openListenStream(): Promise<boolean> }>
    if (
      identity.era === 'legacy' &&
      identity.transport === 'streamable-http' &&
      this.options.serverStream !== false &&
      stream.openListenStream
    ) {
      // Some servers send the GET response headers only with the first event, so the wait is
      // bounded; the stream keeps opening in the background either way.
      const opening = stream.openListenStream().catch((error: unknown) => asMcpxError(error))
      let timer: ReturnType<typeof setTimeout> | undefined
      const waited = new Promise<'waiting'>((resolve) => (timer = setTimeout(() => resolve('waiting'), this.settings.serverStreamWaitMs)))
      const started = performance.now()
      const outcome = await Promise.race([opening, waited])
      clearTimeout(timer)
      const failed = outcome instanceof McpxError
      if (failed) log.debug(`no standalone GET stream: ${outcome.message}`)
      const detail =
        outcome === 'waiting' ? 'still opening' : outcome === false ? 'not offered (405)' : failed ? outcome.message : undefined
      this.timings.push({ step: 'open GET stream', ms: Math.round(performance.now() - started), ok: !failed, detail })
    }
    return new McpClient(peer, state, identity, this.settings, this.timings, this.warn)
  }

  async #step<T>(step: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now()
    try {
      const value = await work()
      this.timings.push({ step, ms: Math.round(performance.now() - started), ok: true })
      return value
    } catch (error) {
      this.timings.push({ step, ms: Math.round(performance.now() - started), ok: false, detail: asMcpxError(error).message })
      throw error
    }
  }

  /** Run one probe step; undefined = "try the next rung", unless `fatal(error)` says stop. */
  async #try<T>(step: string, work: () => Promise<T>, fatal: (error: unknown) => boolean = () => false): Promise<T | undefined> {
    try {
      return await this.#step(step, work)
    } catch (error) {
      if (isAuthFailure(error) || fatal(error)) throw error
      log.debug(`${step} did not settle the era: ${asMcpxError(error).message}`)
      return undefined
    }
  }

  #explain(error: unknown, peer: Peer): McpxError {
    if (isAuthFailure(error)) return authError(error, this.target)
    const mcpx = asMcpxError(error, 'CONNECT')
    if (mcpx.code === 'TIMEOUT' && peer.closed && peer.closeReason) return peer.closeReason
    return mcpx
  }
}

/** An answer that means "not modern here, try legacy": 400/404/405, or any non-modern JSON-RPC error. */
function isLegacyAnswer(error: unknown): boolean {
  if (isModernError(error)) return false
  if (error instanceof RpcError) return true
  if (error instanceof McpxError && error.code === 'CONNECT') {
    const status = error.data?.httpStatus
    return status === HTTP_STATUS.BAD_REQUEST || status === HTTP_STATUS.NOT_FOUND || status === HTTP_STATUS.METHOD_NOT_ALLOWED
  }
  return false
}

/** The POST was refused at the HTTP level (not a JSON-RPC answer): the endpoint may be HTTP+SSE. */
function isRefusedPost(error: unknown): boolean {
  const status = error instanceof McpxError && error.code === 'CONNECT' ? error.data?.httpStatus : undefined
  return status === HTTP_STATUS.BAD_REQUEST || status === HTTP_STATUS.NOT_FOUND || status === HTTP_STATUS.METHOD_NOT_ALLOWED
}

/**
 * Both transports refused at the HTTP level (a POST for Streamable HTTP, then a GET for HTTP+SSE):
 * the URL names no MCP endpoint, most often a wrong path. Said so, with both answers; the GET's
 * status and body stay in the data.
 */
function noEndpoint(url: string, post: McpxError | undefined, get: unknown): McpxError | undefined {
  if (post === undefined || !(get instanceof McpxError) || get.code !== 'CONNECT' || isAuthFailure(get)) return undefined
  const getStatus = get.data?.httpStatus
  if (getStatus === undefined) return undefined
  const page = typeof get.data?.body === 'string' && get.data.body.trim() !== '' ? `: ${bodyLine(get.data.body)}` : ''
  return new McpxError(
    'CONNECT',
    `${url} is not an MCP endpoint: a POST (Streamable HTTP) answered HTTP ${post.data?.httpStatus}, a GET (HTTP+SSE) HTTP ${getStatus}${page}`,
    { ...get.data, postHttpStatus: post.data?.httpStatus },
    { cause: get },
  )
}

function isAuthFailure(error: unknown): boolean {
  if (!(error instanceof McpxError)) return false
  if (error.code === 'AUTH') return true
  const status = error.data?.httpStatus
  return error.code === 'CONNECT' && (status === HTTP_STATUS.UNAUTHORIZED || status === HTTP_STATUS.FORBIDDEN)
}

/** 401/403 → AUTH naming where the protected-resource metadata lives (RFC 9728 via WWW-Authenticate). */
function authError(error: unknown, target: Target): McpxError {
  const mcpx = error as McpxError
  if (mcpx.code === 'AUTH') return mcpx
  const header = typeof mcpx.data?.wwwAuthenticate === 'string' ? mcpx.data.wwwAuthenticate : undefined
  const resourceMetadata = header ? resourceMetadataOf(header) : undefined
  const url = isHttpTarget(target) ? target.url : ''
  const where = resourceMetadata ?? `${new URL(url).origin}/.well-known/oauth-protected-resource`
  return new McpxError(
    'AUTH',
    `${url} requires authorization (HTTP ${mcpx.data?.httpStatus}); protected resource metadata: ${where}`,
    { httpStatus: mcpx.data?.httpStatus, resourceMetadata: where, wwwAuthenticate: header },
    { cause: error },
  )
}

function resourceMetadataOf(wwwAuthenticate: string): string | undefined {
  return /resource_metadata="([^"]+)"/i.exec(wwwAuthenticate)?.[1] ?? /resource_metadata=([^\s,]+)/i.exec(wwwAuthenticate)?.[1]
}
