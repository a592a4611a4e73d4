/** lib/settings: the one registry (unique env names, resolution order, no process.env reads elsewhere). */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { McpxError } from '../../../lib/errors/index.ts'
import { SETTINGS, resolveSettings } from '../../../lib/settings/index.ts'
import { REPO_ROOT } from '../../harness.ts'

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : []
  })
}

describe('settings registry', () => {
  test('every setting has a doc and an MCPX_ environment override, and env names are unique', () => {
    const envs = Object.values(SETTINGS).map((def) => def.env)
    for (const [name, def] of Object.entries(SETTINGS)) {
      expect(def.doc.length, name).toBeGreaterThan(10)
      expect(def.env, name).toMatch(/^MCPX_[A-Z0-9_]+$/)
    }
    expect(new Set(envs).size).toBe(envs.length)
  })

  test('environment overrides defaults and flags override the environment', () => {
    const fromEnv = resolveSettings({ MCPX_TIMEOUT_MS: '1234' })
    expect(fromEnv.requestTimeoutMs).toBe(1234)
    expect(resolveSettings({ MCPX_TIMEOUT_MS: '1234' }, { requestTimeoutMs: 5 }).requestTimeoutMs).toBe(5)
    expect(resolveSettings({}).requestTimeoutMs).toBe(SETTINGS.requestTimeoutMs.default)
  })

  test('a bad value names the setting and its source', () => {
    expect(() => resolveSettings({ MCPX_TIMEOUT_MS: 'soon' })).toThrow(McpxError)
    expect(() => resolveSettings({ MCPX_TIMEOUT_MS: '-1' })).toThrow(/requestTimeoutMs.*MCPX_TIMEOUT_MS/)
  })

  test('a setting with named values takes only those, and says which', () => {
    expect(resolveSettings({ MCPX_MCP_MODE: 'raw' }).mcpMode).toBe('raw')
    expect(() => resolveSettings({ MCPX_MCP_MODE: 'bogus' })).toThrow(
      'setting mcpMode (from MCPX_MCP_MODE) must be one of code-mode, raw, reactive, got "bogus"',
    )
    expect(() => resolveSettings({}, { mcpMode: 'rawish' })).toThrow('must be one of code-mode, raw, reactive')
  })

  test('nothing outside the settings registry and cli/context.ts reads the environment (process.env, Bun.env, import.meta.env)', () => {
    const offenders = [...sourceFiles(join(REPO_ROOT, 'lib')), ...sourceFiles(join(REPO_ROOT, 'cli'))]
      .filter((path) => !path.includes('/lib/settings/') && !path.endsWith('cli/context.ts'))
      .filter((path) =>
        /\b(process|Bun|import\.meta)\.env\b|\{[^}]*\benv\b[^}]*\}\s*from\s*['"](node:)?process['"]/.test(readFileSync(path, 'utf8')),
      )
      .map((path) => path.slice(REPO_ROOT.length + 1))
    expect(offenders).toEqual([])
  })
})
