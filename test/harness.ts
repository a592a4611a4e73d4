/**
 * Shared test helpers: how to run the mcpx CLI (the compiled binary when MCPX_EXE is set, as in
 * `npm test`, else `bun cli/main.ts`), temp dirs, and settings with short deadlines.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type SettingOverrides, type Settings, defaultSettings } from '../lib/settings/index.ts'

export const REPO_ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '')

/** argv prefix that runs the mcpx CLI under test. */
export function mcpxCommand(): string[] {
  const exe = process.env.MCPX_EXE
  return exe ? [exe] : [process.execPath, join(REPO_ROOT, 'cli/main.ts')]
}

export interface CliResult {
  stdout: string
  stderr: string
  exitCode: number
}

/**
 * The `{"error":…}` line a failing command writes on stderr (after its human `mcpx: …` line, when
 * stderr is not a terminal or with --json).
 */
export function errorJson(stderr: string): { error: { code: string; message: string; data?: Record<string, unknown> } } {
  const line = stderr
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{"error"'))
  if (line === undefined) throw new Error(`no JSON error line on stderr: ${JSON.stringify(stderr)}`)
  return JSON.parse(line)
}

/** Run the CLI to completion and collect stdout, stderr and the exit code. */
export async function runMcpx(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
): Promise<CliResult> {
  await using proc = Bun.spawn([...mcpxCommand(), ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    // The "still waiting…" notice depends on how fast this machine is; tests that want it set it low.
    env: { ...process.env, MCPX_CLI_SLOW_NOTICE_MS: '600000', ...options.env },
    stdin: options.stdin === undefined ? 'ignore' : new Blob([options.stdin]),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, exitCode }
}

/** A temp directory removed on dispose: `using dir = tempDir('x')`. */
export function tempDir(prefix = 'mcpx-test'): { path: string; [Symbol.dispose](): void } {
  const path = mkdtempSync(join(tmpdir(), `${prefix}-`))
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) }
}

/** Default settings with test-sized deadlines unless overridden. */
export function testSettings(overrides: SettingOverrides = {}): Settings {
  return defaultSettings({ requestTimeoutMs: 10_000, probeTimeoutMs: 1_000, shutdownGraceMs: 500, ...overrides })
}
