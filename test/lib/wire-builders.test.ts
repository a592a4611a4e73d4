/**
 * -32020 (header mismatch), -32021 (missing client capability), -32022 (unsupported version), -32002
 * (a legacy resource not found) and -32601 (method not found) are
 * built only by lib/wire's builders (rpc-errors.ts), which own each code's data shape and HTTP
 * status; a hand-built copy next to them is how a status or a `data` key goes missing. This pins it
 * the way the settings registry pins `process.env`: reading a code (`code === RPC.METHOD_NOT_FOUND`)
 * is fine, constructing one anywhere else fails here. Every other JSON-RPC code is written by its
 * name in lib/errors' RPC, never as a number, outside lib/wire and lib/errors.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { REPO_ROOT } from '../harness.ts'

/** The wire room (its builders, and the matrix that lists every code) and the code table itself. */
const OWNERS = ['lib/wire/', 'lib/errors/']
const CODES = 'METHOD_NOT_FOUND|HEADER_MISMATCH|MISSING_CLIENT_CAPABILITY|UNSUPPORTED_PROTOCOL_VERSION|RESOURCE_NOT_FOUND_LEGACY'
/** `new RpcError(RPC.X …` or `{ code: RPC.X …`, by name or number, in code (comments stripped). */
const HAND_BUILT = new RegExp(
  `new RpcError\\(\\s*RPC\\.(?:${CODES})\\b|code:\\s*RPC\\.(?:${CODES})\\b|(?:code:\\s*|new RpcError\\(\\s*)-(?:32601|32020|32021)\\b`,
  'g',
)
/** A JSON-RPC error code written as a number (`code: -32600`, `new RpcError(-32603`): lib/errors' RPC names every one. */
const NUMERIC_CODE = /(?:code:\s*|new RpcError\(\s*|\?\s*|:\s*|===?\s*)-32\d{3}\b/g
const transpiler = new Bun.Transpiler({ loader: 'ts' })

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : []
  })
}

function handBuilt(source: string): string[] {
  const code = transpiler.transformSync(source)
  return [...new Set([...(code.match(HAND_BUILT) ?? []), ...(code.match(NUMERIC_CODE) ?? [])])]
}

describe('JSON-RPC errors through wire builders', () => {
  test('-32020, -32021 and -32601 are built only in lib/wire/rpc-errors.ts; no JSON-RPC code is a bare number', () => {
    const offenders = files(join(REPO_ROOT, 'lib'))
      .map((file) => [relative(REPO_ROOT, file), handBuilt(readFileSync(file, 'utf8'))] as const)
      .filter(([name, found]) => found.length > 0 && !OWNERS.some((owner) => name.startsWith(owner)))
      .map(([name, found]) => `${name}: ${found.join(', ')}`)
    expect(offenders).toEqual([])
  })

  test('a planted hand-built error is seen; a comparison or a comment is not', () => {
    expect(handBuilt("throw new RpcError(\n  RPC.METHOD_NOT_FOUND, 'x')\nconst e = { code: -32021, message: 'm' }\n")).toEqual([
      'new RpcError(RPC.METHOD_NOT_FOUND',
      'code: -32021',
    ])
    // Any JSON-RPC code as a bare number, built or compared: lib/errors' RPC names it.
    expect(handBuilt("const body = { jsonrpc: '2.0', error: { code: -32600, message } }\nif (e.rpcCode === -32601) x()\n")).toEqual([
      'code: -32600',
      '=== -32601',
    ])
    expect(handBuilt('// -32601 in a comment\nif (error.code === RPC.METHOD_NOT_FOUND) return 404\n')).toEqual([])
  })
})
