/**
 * The roots a pooled upstream gets when no caller can answer its `roots/list` (README "Brokering"):
 * a host over `mcpx serve` that declared no roots, and server-filesystem, which asks once after the
 * handshake and replaces the directories it was started with by any roots it is given.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT, runMcpx } from '../harness.ts'
import { layoutForEnv } from '../support/layout.ts'
import { isolatedUser } from './cli-env.ts'
import { callThroughServe } from './serve-host.ts'

const user = isolatedUser('mcpx-roots')
const filesystem = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')
const shared = join(user.home, 'shared')
mkdirSync(shared)
const entry = { command: 'node', args: [filesystem, shared] }
const projectConfig = join(user.project, 'mcpx.json')
// The daemon finds `node` on the PATH of the `mcpx serve` that starts it.
const hostEnv = { ...user.env, PATH: process.env.PATH ?? '' }

afterAll(async () => {
  await runMcpx(['daemon', 'stop', '--all'], { env: hostEnv })
  user[Symbol.dispose]()
})

/** server-filesystem's verdict on the roots it got, from its stderr in the daemon's log. */
async function rootsVerdict(env: Record<string, string>, server = 'files'): Promise<string> {
  const log = layoutForEnv(env).daemonLog
  for (let i = 0; i < 100; i++) {
    const verdict = readFileSync(log, 'utf8').match(
      new RegExp(`\\[${server} stderr\\] (No valid root directories|Updated allowed directories)`),
    )
    if (verdict) return verdict[1]!
    await Bun.sleep(50)
  }
  throw new Error(`server-filesystem never answered its roots in ${log}:\n${readFileSync(log, 'utf8')}`)
}

describe('roots when no caller answers them: none unless the config sets them', () => {
  test('at the default location, server-filesystem keeps the directory it was started with', async () => {
    mkdirSync(join(user.home, '.config', 'mcpx'), { recursive: true })
    writeFileSync(user.configFile, JSON.stringify({ mcpServers: { files: entry } }))
    await callThroughServe([], hostEnv, 'files.list_allowed_directories')
    expect(await rootsVerdict(hostEnv)).toBe('No valid root directories')
    const { text } = await callThroughServe([], hostEnv, 'files.list_allowed_directories')
    expect(text).toBe(`Allowed directories:\n${shared}`)
  })

  test('a config file named elsewhere: the same, and `roots` set there (relative to it) are what it gets', async () => {
    writeFileSync(projectConfig, JSON.stringify({ mcpServers: { files: entry, rooted: { ...entry, roots: ['.'] } } }))
    const env = { ...hostEnv, MCPX_CONFIG: projectConfig }
    await callThroughServe([], env, 'files.list_allowed_directories')
    expect(await rootsVerdict(env, 'files')).toBe('No valid root directories')
    expect((await callThroughServe([], env, 'files.list_allowed_directories')).text).toBe(`Allowed directories:\n${shared}`)
    await callThroughServe([], env, 'rooted.list_allowed_directories')
    expect(await rootsVerdict(env, 'rooted')).toBe('Updated allowed directories')
    expect((await callThroughServe([], env, 'rooted.list_allowed_directories')).text).toBe(`Allowed directories:\n${user.project}`)
  })
})
