/** The README's settings table is the registry's: regenerate it with `mcpx settings --markdown`. */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { settingsMarkdown } from '../../cli/commands/settings.ts'
import { REPO_ROOT, runMcpx, errorJson } from '../harness.ts'

describe('mcpx settings', () => {
  test('the README carries exactly the registry table', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
    const table = readme
      .slice(readme.indexOf('<!-- settings:start -->') + '<!-- settings:start -->'.length, readme.indexOf('<!-- settings:end -->'))
      .trim()
    expect(table).toBe(settingsMarkdown())
  })

  test('--markdown prints that table; a bad override names the setting and its variable', async () => {
    expect((await runMcpx(['settings', '--markdown'])).stdout).toBe(`${settingsMarkdown()}\n`)
    const bad = await runMcpx(['settings'], { env: { MCPX_TIMEOUT_MS: 'soon' } })
    expect(bad.exitCode).toBe(2)
    expect(errorJson(bad.stderr).error).toMatchObject({ code: 'CONFIG', data: { setting: 'requestTimeoutMs', source: 'MCPX_TIMEOUT_MS' } })
  })
})
