/** lib/daemon/security.ts: the Host/Origin/token guard in front of every daemon surface. */
import { describe, expect, test } from 'bun:test'
import { checkRequest, type GuardPolicy } from '../../../lib/daemon/index.ts'

const policy: GuardPolicy = {
  token: 'secret',
  allowedHosts: new Set(['mcpx.internal']),
  allowedOrigins: new Set(['https://ok.example']),
  port: () => 4000,
}

function req(method: string, headers: Record<string, string>): Request {
  return new Request('http://127.0.0.1:4000/v1/call', { method, headers, ...(method === 'POST' && { body: '{}' }) })
}

describe('checkRequest', () => {
  test.each([
    [
      'loopback host, token, JSON',
      'tcp',
      'POST',
      { Host: '127.0.0.1:4000', Authorization: 'Bearer secret', 'Content-Type': 'application/json; charset=utf-8' },
      null,
    ],
    ['localhost name', 'tcp', 'GET', { Host: 'localhost:4000', Authorization: 'Bearer secret' }, null],
    ['IPv6 loopback', 'tcp', 'GET', { Host: '[::1]:4000', Authorization: 'Bearer secret' }, null],
    ['configured extra host', 'tcp', 'GET', { Host: 'mcpx.internal', Authorization: 'Bearer secret' }, null],
    ['rebound host', 'tcp', 'GET', { Host: 'evil.example:4000', Authorization: 'Bearer secret' }, 403],
    ['rebound host on the socket', 'unix', 'GET', { Host: 'evil.example' }, 403],
    ['foreign origin', 'tcp', 'GET', { Host: '127.0.0.1:4000', Origin: 'https://evil.example', Authorization: 'Bearer secret' }, 403],
    ['null origin', 'unix', 'GET', { Host: 'localhost', Origin: 'null' }, 403],
    [
      'loopback origin on another port',
      'tcp',
      'GET',
      { Host: '127.0.0.1:4000', Origin: 'http://localhost:3000', Authorization: 'Bearer secret' },
      403,
    ],
    ['own origin', 'tcp', 'GET', { Host: '127.0.0.1:4000', Origin: 'http://127.0.0.1:4000', Authorization: 'Bearer secret' }, null],
    ['allow-listed origin', 'tcp', 'GET', { Host: '127.0.0.1:4000', Origin: 'https://ok.example', Authorization: 'Bearer secret' }, null],
    ['no token on TCP', 'tcp', 'GET', { Host: '127.0.0.1:4000' }, 401],
    ['wrong token on TCP', 'tcp', 'GET', { Host: '127.0.0.1:4000', Authorization: 'Bearer secreT' }, 401],
    ['a prefix of the token', 'tcp', 'GET', { Host: '127.0.0.1:4000', Authorization: 'Bearer secre' }, 401],
    ['the token and more', 'tcp', 'GET', { Host: '127.0.0.1:4000', Authorization: 'Bearer secrets' }, 401],
    ['same length, first character wrong', 'tcp', 'GET', { Host: '127.0.0.1:4000', Authorization: 'Bearer Secret' }, 401],
    ['the token, case-insensitive scheme, trailing space', 'tcp', 'GET', { Host: '127.0.0.1:4000', Authorization: 'bearer secret ' }, null],
    ['no token needed on the socket', 'unix', 'GET', { Host: 'localhost' }, null],
    ['text/plain POST', 'unix', 'POST', { Host: 'localhost', 'Content-Type': 'text/plain;charset=UTF-8' }, 415],
    [
      'form POST',
      'tcp',
      'POST',
      { Host: '127.0.0.1:4000', Authorization: 'Bearer secret', 'Content-Type': 'application/x-www-form-urlencoded' },
      415,
    ],
  ] as const)('%s', (_name, surface, method, headers, status) => {
    expect(checkRequest(req(method, headers), surface, policy)?.status ?? null).toBe(status)
  })
})
