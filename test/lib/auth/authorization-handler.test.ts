/** lib/auth/authorization-handler.ts: the loopback listener that receives the authorization response. */
import { describe, expect, test } from 'bun:test'
import { createLoopbackHandler, createOAuthProvider } from '../../../lib/auth/index.ts'
import { McpxError } from '../../../lib/errors/index.ts'
import { testSettings } from '../../harness.ts'
import { type TokenRegistry, callThrough, startAuthorizationServer, startResourceServer } from './oauth-peers.ts'

describe('loopback authorization handler', () => {
  test('listens on 127.0.0.1, registers that redirect URI, and receives the code when the "browser" follows the redirect', async () => {
    const registry: TokenRegistry = new Map()
    await using as = await startAuthorizationServer({ registry })
    await using rs = await startResourceServer({ registry, authorizationServers: () => [as.issuer] })
    const opened: string[] = []
    // The "browser": fetch follows the AS's 302 to the loopback listener.
    const handler = createLoopbackHandler({
      timeoutMs: 10_000,
      open: async (url) => {
        opened.push(url)
        await fetch(url)
      },
    })
    const provider = createOAuthProvider({ serverUrl: rs.endpoint, settings: testSettings(), authorizationHandler: handler })
    expect((await callThrough(provider, rs.endpoint, 'x')).status).toBe(200)
    expect(opened.length).toBe(1)
    const redirect = new URL(opened[0]!).searchParams.get('redirect_uri')!
    expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    expect((as.of('/register')[0]!.body as { redirect_uris: string[] }).redirect_uris).toEqual([redirect])
    // The listener is gone after the flow.
    await expect(fetch(redirect)).rejects.toThrow()
  })

  test('no redirect within the deadline is a TIMEOUT', async () => {
    const session = await createLoopbackHandler({ timeoutMs: 50, open: () => {} }).begin({})
    try {
      await session.authorize(new URL('https://auth.example/authorize'))
      throw new Error('expected a timeout')
    } catch (error) {
      expect(error).toBeInstanceOf(McpxError)
      expect((error as McpxError).code).toBe('TIMEOUT')
    } finally {
      await session[Symbol.asyncDispose]()
    }
  })
})

describe('loopback listener hygiene', () => {
  test('a hit without the pending state is answered 400 and does not end the wait', async () => {
    const session = await createLoopbackHandler({
      timeoutMs: 10_000,
      open: async () => {
        const stray = await fetch(`${session.redirectUri}?code=forged&state=other`)
        expect(stray.status).toBe(400)
        expect((await fetch(`${session.redirectUri.replace('/callback', '/elsewhere')}`)).status).toBe(404)
        expect((await fetch(`${session.redirectUri}?code=real&state=s-1`)).status).toBe(200)
      },
    }).begin({})
    try {
      const url = await session.authorize(new URL('https://auth.example/authorize?state=s-1'))
      expect(url.searchParams.get('code')).toBe('real')
    } finally {
      await session[Symbol.asyncDispose]()
    }
  })
})
