/**
 * `mcpx call --out` and `mcpx resource read [--out]` against a server whose bytes are no base64
 * (malformed-results-fixture.ts): the file is never written with bytes a lenient decoder made up,
 * the summary says the data is not base64, an empty resource says so, and `--out` with no blob to
 * write is refused as `call --out` refuses it. Valid bytes are written as sent.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT, errorJson, runMcpx } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

const user = isolatedUser('mcpx-binary-out')
const fixture = join(REPO_ROOT, 'test/fixtures/peers/malformed-results-fixture.ts')
const run = (argv: string[]) => runMcpx(argv, { env: user.env, cwd: user.project })
const file = (name: string) => join(user.project, name)

beforeAll(() => {
  mkdirSync(join(user.home, '.config', 'mcpx'), { recursive: true })
  writeFileSync(user.configFile, JSON.stringify({ mcpServers: { bad: { command: process.execPath, args: [fixture] } } }))
})
afterAll(async () => {
  await run(['daemon', 'stop'])
  user[Symbol.dispose]()
})

describe('bytes that are no base64', () => {
  test('call --out refuses them as PROTOCOL and writes no file; without --out the summary says so', async () => {
    const refused = await run(['call', 'bad.bad_image', '--out', file('image.png')])
    expect(refused.exitCode).toBe(5)
    expect(errorJson(refused.stderr).error).toMatchObject({
      code: 'PROTOCOL',
      message: 'the server sent image/png content that is not valid base64',
    })
    expect(existsSync(file('image.png'))).toBe(false)
    const shown = await run(['call', 'bad.bad_image'])
    expect(shown.exitCode).toBe(0)
    expect(shown.stdout).toBe('[image image/png, not valid base64; --out FILE writes it]\n')
  })

  test('resource read --out refuses a blob that is no base64; the summary says so', async () => {
    const refused = await run(['resource', 'read', 'bad', 'test://bad-blob', '--out', file('blob.bin')])
    expect(refused.exitCode).toBe(5)
    expect(errorJson(refused.stderr).error.message).toBe('the server sent the blob of test://bad-blob that is not valid base64')
    expect(existsSync(file('blob.bin'))).toBe(false)
    const shown = await run(['resource', 'read', 'bad', 'test://bad-blob'])
    expect(shown.stdout).toBe('[blob test://bad-blob, image/png, not valid base64; --out FILE writes it]\n')
  })
})

describe('resource read', () => {
  test('a valid blob is written as sent', async () => {
    const written = await run(['resource', 'read', 'bad', 'test://image', '--out', file('image.bin')])
    expect(written.exitCode).toBe(0)
    expect(written.stderr).toContain(`mcpx: wrote 7 bytes (image/png) to ${file('image.bin')}`)
    expect(readFileSync(file('image.bin'), 'utf8')).toBe('PNGDATA')
  })

  test('contents with neither text nor a blob are shown as the server sent them, not as an empty blob, through the daemon or not', async () => {
    const expected = ['{"uri":"test://incomplete"}', '{"text":"no uri"}', '{"uri":"test://incomplete","text":5}', 'fine', '']
    const shown = await run(['resource', 'read', 'bad', 'test://incomplete'])
    expect(shown.exitCode).toBe(0)
    expect(shown.stdout.split('\n')).toEqual(expected)
    const direct = await run(['resource', 'read', '--stdio', `${process.execPath} ${fixture}`, 'test://incomplete'])
    expect(direct.exitCode).toBe(0)
    expect(direct.stdout.split('\n')).toEqual(expected)
  })

  test('no contents is said on stderr; --out with nothing to write is refused NOT_FOUND', async () => {
    const empty = await run(['resource', 'read', 'bad', 'test://empty'])
    expect(empty.exitCode).toBe(0)
    expect(empty.stdout).toBe('')
    expect(empty.stderr).toContain('mcpx: test://empty has no contents')
    const nothing = await run(['resource', 'read', 'bad', 'test://empty', '--out', file('empty.bin')])
    expect(nothing.exitCode).toBe(2)
    expect(errorJson(nothing.stderr).error.code).toBe('NOT_FOUND')
    expect(existsSync(file('empty.bin'))).toBe(false)
  })
})
