/** `mcpx search`, `mcpx types` and `mcpx exec` through the daemon, against the built-in demo server. */
import { afterAll, describe, expect, test } from 'bun:test'
import { runMcpx, errorJson } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

const user = isolatedUser('mcpx-cli-codemode')
const mcpx = (args: string[], stdin?: string) => runMcpx(args, { env: user.env, ...(stdin !== undefined && { stdin }) })

afterAll(async () => {
  await mcpx(['daemon', 'stop'])
  user[Symbol.dispose]()
})

describe('code mode verbs', () => {
  test('search ranks the tool that does what was asked first', async () => {
    const result = await mcpx(['search', 'add', 'two', 'numbers', '--json'])
    expect(result.exitCode).toBe(0)
    expect(JSON.parse(result.stdout)[0]).toMatchObject({ qualifiedName: 'demo.add' })
  })

  test('types declares one tool as the sandbox exposes it', async () => {
    const result = await mcpx(['types', 'demo.add'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('declare namespace demo')
    expect(result.stdout).toContain('function add(args: add_Input)')
  })

  test('exec runs a script from stdin: logs to stderr, value to stdout', async () => {
    const result = await mcpx(
      ['exec', '-'],
      'const r = await demo.add({ a: 1, b: 2 }); console.log("sum is", r.sum); return { doubled: r.sum * 2 }',
    )
    expect(result).toEqual({ stdout: '{\n  "doubled": 6\n}\n', stderr: 'sum is 3\n', exitCode: 0 })
  })

  test('a runaway script is stopped with its reason and exit 1; the next one works', async () => {
    const runaway = await mcpx(['exec', '-'], 'while (true) {}')
    expect(runaway.exitCode).toBe(1)
    expect(errorJson(runaway.stderr).error).toMatchObject({ code: 'SANDBOX', data: { reason: 'cpu' } })
    expect((await mcpx(['exec', '-'], 'return 1 + 1')).stdout).toBe('2\n')
  })
})
