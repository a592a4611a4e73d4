/** `mcpx search`, `mcpx types` and `mcpx exec` through the daemon, against the built-in demo server. */
import { afterAll, describe, expect, test } from 'bun:test'
import { runMcpx, errorJson } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

const user = isolatedUser('mcpx-cli-codemode')
/** A drain far beyond the test's own timeout, so an exec that waits it out cannot pass. */
const LINGER_PROBE_DRAIN_MS = 600_000
const EXEC_EXIT_TIMEOUT_MS = 30_000
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

  test(
    'exec exits once its answer is printed, not when the event drain would end',
    async () => {
      // Before, the drain's timer kept the process alive: every exec lingered the whole drain (1 s by
      // default) after printing. With a drain longer than this test's timeout, a lingering exec fails it.
      const result = await runMcpx(['exec', '-'], {
        env: { ...user.env, MCPX_CLI_EVENT_DRAIN_MS: String(LINGER_PROBE_DRAIN_MS) },
        stdin: 'console.log("ran"); return 7',
      })
      expect(result).toEqual({ stdout: '7\n', stderr: 'ran\n', exitCode: 0 })
    },
    EXEC_EXIT_TIMEOUT_MS,
  )

  test('a runaway script is stopped with its reason and exit 1; the next one works', async () => {
    const runaway = await mcpx(['exec', '-'], 'while (true) {}')
    expect(runaway.exitCode).toBe(1)
    expect(errorJson(runaway.stderr).error).toMatchObject({ code: 'SANDBOX', data: { reason: 'cpu' } })
    expect((await mcpx(['exec', '-'], 'return 1 + 1')).stdout).toBe('2\n')
  })
})
