/**
 * The sandbox inside the single executable: the QuickJS wasm must be embedded (the binary runs
 * from a directory with no node_modules), the binary must detect that it is compiled and respawn
 * itself as `sandbox-child`, and the memory cap must hold there too. Uses MCPX_EXE when the suite
 * runs under `npm test`, else builds a binary into a temp dir.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { SandboxError, createSandboxPool, isCompiledBinary, sandboxChildCommand } from '../../../lib/codemode/index.ts'
import { REPO_ROOT, mcpxCommand, tempDir, errorJson } from '../../harness.ts'
import { recordingBridge, sandboxSettings } from './helpers.ts'

// bunfig.toml declares a 60 s test timeout, but Bun 1.4.5 does not apply it (default 5 s); these tests spawn
// processes (sandbox children, tsc, bun build) on a loaded 2-core box, so restore the declared default.
setDefaultTimeout(60_000)

const workDir = tempDir('mcpx-compiled')
const exe = join(workDir.path, 'mcpx')

beforeAll(async () => {
  const given = mcpxCommand()
  if (given.length === 1) {
    copyFileSync(given[0]!, exe)
    return
  }
  await using build = Bun.spawn([process.execPath, 'build', '--compile', 'cli/main.ts', '--outfile', exe], {
    cwd: REPO_ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stderr, code] = await Promise.all([new Response(build.stderr).text(), build.exited])
  if (code !== 0) throw new Error(`bun build --compile failed: ${stderr}`)
})
afterAll(() => workDir[Symbol.dispose]())

describe('compiled binary', () => {
  test('detects compiled vs source runs', () => {
    expect(isCompiledBinary('/$bunfs/root/mcpx')).toBe(true)
    expect(isCompiledBinary('B:/~BUN/root/mcpx.exe')).toBe(true)
    expect(isCompiledBinary(join(REPO_ROOT, 'lib/codemode/child-command.ts'))).toBe(false)
    expect(sandboxChildCommand().slice(-2)).toEqual([join(REPO_ROOT, 'cli/main.ts'), 'sandbox-child'])
  })

  test('the binary runs a script through its own sandbox child, from a directory without node_modules', async () => {
    await using proc = Bun.spawn([exe, 'sandbox-child', '--exec', 'console.log("hi"); return [1 + 2, typeof process, typeof Bun]'], {
      cwd: workDir.path,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    expect({ stderr, exitCode }).toEqual({ stderr: '', exitCode: 0 })
    expect(JSON.parse(stdout)).toMatchObject({ value: [3, 'undefined', 'undefined'], logs: ['hi'] })
  })

  test('a script error in the binary is a SANDBOX error on stderr with a non-zero exit', async () => {
    await using proc = Bun.spawn([exe, 'sandbox-child', '--exec', 'return ;;; 1 +'], { cwd: workDir.path, stdout: 'pipe', stderr: 'pipe' })
    const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    expect(stdout).toBe('')
    expect(errorJson(stderr)).toMatchObject({ error: { code: 'SANDBOX', data: { reason: 'syntax' } } })
    expect(exitCode).not.toBe(0)
  })

  test('a pool whose children are the compiled binary: tools, memory cap and recovery', async () => {
    await using pool = createSandboxPool(sandboxSettings(), { command: [exe, 'sandbox-child'] })
    const bridge = recordingBridge()
    expect((await pool.exec('return await test.echo({n: 1})', bridge)).value).toEqual({ name: 'test.echo', args: { n: 1 } })
    const bomb = await pool.exec('const a = []; while (true) a.push(new Array(1 << 17).fill(a.length))', bridge).catch((e: unknown) => e)
    expect(bomb).toBeInstanceOf(SandboxError)
    expect((bomb as SandboxError).reason).toBe('memory')
    expect((await pool.exec('return "still here"', bridge)).value).toBe('still here')
  })
})
