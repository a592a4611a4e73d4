/** lib/config/environment.ts: the variables upstreams inherit, and the proxy the daemon's own requests use. */
import { describe, expect, test } from 'bun:test'
import { pickVariables, useProxyVariables } from '../../../lib/config/index.ts'

describe('pickVariables', () => {
  test("the baseline carries the shell's proxy and CA variables; nothing else unless the config names it", () => {
    const shell = { HOME: '/h', https_proxy: 'http://p:3128', NO_PROXY: 'corp', NODE_EXTRA_CA_CERTS: '/ca.pem', SECRET: 'x', WANTED: 'y' }
    expect(pickVariables(shell, ['WANTED'])).toEqual({
      HOME: '/h',
      https_proxy: 'http://p:3128',
      NO_PROXY: 'corp',
      NODE_EXTRA_CA_CERTS: '/ca.pem',
      WANTED: 'y',
    })
  })
})

describe('useProxyVariables', () => {
  test("the snapshot's proxy is set on the daemon, and loopback is kept off it", () => {
    const daemon: Record<string, string | undefined> = { PATH: '/bin' }
    useProxyVariables({ HTTPS_PROXY: 'http://p:3128', NO_PROXY: 'corp.example, localhost' }, daemon)
    expect(daemon).toEqual({
      PATH: '/bin',
      HTTPS_PROXY: 'http://p:3128',
      NO_PROXY: 'corp.example,localhost,127.0.0.1,::1',
      no_proxy: 'localhost,127.0.0.1,::1',
    })
  })

  test('no proxy anywhere: nothing is set', () => {
    const daemon: Record<string, string | undefined> = { PATH: '/bin' }
    useProxyVariables({ HOME: '/h', NO_PROXY: 'corp' }, daemon)
    expect(daemon).toEqual({ PATH: '/bin', NO_PROXY: 'corp' })
  })
})
