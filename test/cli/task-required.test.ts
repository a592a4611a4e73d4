/**
 * `mcpx call` and `mcpx exec` of a task-required upstream tool (server-everything's
 * simulate-research-query): the CLI asks for no task, the daemon runs the upstream task and the
 * result is the task's.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { REPO_ROOT, runMcpx } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

const user = isolatedUser('mcpx-cli-task-required')
mkdirSync(dirname(user.configFile), { recursive: true })
const everything = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')
writeFileSync(user.configFile, JSON.stringify({ mcpServers: { everything: { command: 'node', args: [everything, 'stdio'] } } }))
const mcpx = (args: string[], stdin?: string) => runMcpx(args, { env: user.env, ...(stdin !== undefined && { stdin }) })

afterAll(async () => {
  await mcpx(['daemon', 'stop'])
  user[Symbol.dispose]()
})

describe('task-required tool from the CLI', () => {
  test('mcpx call prints the task result', async () => {
    const result = await mcpx(['call', 'everything.simulate-research-query', 'topic=moss'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('# Research Report: moss')
  })

  test('mcpx exec gets the task result inside the sandbox', async () => {
    const result = await mcpx(
      ['exec', '-'],
      'const r = await everything.simulate_research_query({ topic: "ferns" }); return String(r).split("\\n")[0]',
    )
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('# Research Report: ferns')
  })
})
