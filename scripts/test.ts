/**
 * The whole test run, as CI does it (`npm test`):
 *   1. build the single executable (dist/mcpx) so CLI tests run against the binary;
 *   2. `tsc --noEmit` over everything, Biome's format and lint check (`biome ci`), then `bun test` over test/ with MCPX_EXE pointing at that binary;
 *   3. the official conformance suite via ../shared/conformance/run: the fixture server (both
 *      requirement sets, scored, then strict), the gateway's pass-through surface in front of that
 *      fixture (the same two runs) and in front of the official server-everything (every scenario it
 *      passes alone must pass through), the same pass-through behind HAProxy + 3 replicas
 *      (scripts/conformance-cluster.ts, strict), and the conformance client (both sets, strict).
 * Prints one closing line `mcpx: N passed, M failed` and exits non-zero if anything failed.
 * Flags: --no-build, --no-conformance, --only-conformance, and any other args go to `bun test`.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '')
const argv = process.argv.slice(2)
const flag = (name: string) => {
  const i = argv.indexOf(name)
  if (i >= 0) argv.splice(i, 1)
  return i >= 0
}
const noBuild = flag('--no-build')
const noConformance = flag('--no-conformance')
const onlyConformance = flag('--only-conformance')
const bun = process.execPath
const exe = join(root, 'dist/mcpx')
const conformanceRun = process.env.MCPX_CONFORMANCE_RUN ?? join(root, '../shared/conformance/run')

let passed = 0
let failed = 0

async function step(name: string, cmd: string[], env: Record<string, string> = {}): Promise<string> {
  console.error(`\n== ${name}: ${cmd.join(' ')}`)
  const proc = Bun.spawn(cmd, { cwd: root, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([pipeThrough(proc.stdout, process.stdout), pipeThrough(proc.stderr, process.stderr)])
  const code = await proc.exited
  if (code !== 0) console.error(`== ${name}: exit ${code}`)
  return `${out}\n${err}\nEXIT ${code}`
}

async function pipeThrough(stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream): Promise<string> {
  let text = ''
  const decoder = new TextDecoder()
  const reader = stream.getReader()
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    sink.write(next.value)
    text += decoder.decode(next.value, { stream: true })
  }
  return text
}

function count(output: string, label: string, pass: RegExp, fail: RegExp): void {
  const p = Number(output.match(pass)?.[1] ?? 0)
  const f = Number(output.match(fail)?.[1] ?? 0)
  const exitOk = /EXIT 0$/.test(output)
  passed += p
  failed += f + (exitOk || f > 0 ? 0 : 1)
  console.error(`== ${label}: ${p} passed, ${f} failed${exitOk ? '' : ' (non-zero exit)'}`)
}

if (!noBuild) {
  const out = await step('build', [bun, 'scripts/build.ts'])
  if (!/EXIT 0$/.test(out)) failed += 1
}

if (!onlyConformance) {
  const typecheck = await step('typecheck', [bun, join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', root])
  const typeErrors = (typecheck.match(/error TS\d+/g) ?? []).length
  console.error(`== typecheck: ${typeErrors} errors`)
  if (!/EXIT 0$/.test(typecheck)) failed += Math.max(1, typeErrors)
}

if (!onlyConformance) {
  // Biome: formatting and lint over lib/, cli/, scripts/ and test/ (biome.json); `npm run lint` is the same check,
  // `npm run format` rewrites. Warnings are shown, errors (and any unformatted file) fail.
  const lint = await step('lint', [join(root, 'node_modules/.bin/biome'), 'ci', '--colors=off', root])
  const lintErrors = Number(lint.match(/Found (\d+) errors?/)?.[1] ?? 0)
  console.error(`== lint: ${lintErrors} errors`)
  if (!/EXIT 0$/.test(lint)) failed += Math.max(1, lintErrors)
}

if (!onlyConformance) {
  const env: Record<string, string> = existsSync(exe) ? { MCPX_EXE: exe } : {}
  // bunfig's [test] timeout is not honoured by bun 1.4.5 (measured): subprocess-heavy tests need the flag.
  const out = await step('bun test', [bun, 'test', '--timeout', '60000', ...argv], env)
  count(out, 'bun test', /^\s*(\d+) pass$/m, /^\s*(\d+) fail$/m)
}

if (!noConformance) {
  if (!existsSync(conformanceRun)) {
    console.error(`== conformance: ${conformanceRun} not found`)
    failed += 1
  } else {
    const port = 30_000 + Math.floor(Math.random() * 20_000)
    const url = `http://127.0.0.1:${port}/mcp`
    const fixture = { CONF_SERVER_CMD: `${bun} ${join(root, 'test/fixtures/everything/main.ts')} --port ${port}` }
    // Every scored scenario of both requirement sets must pass, with no vacuous pass allowed.
    const scored = await step('conformance server (scored)', ['bash', conformanceRun, 'server', url, 'both'], fixture)
    count(scored, 'conformance server (scored)', /conformance: (\d+) passed/, /conformance: \d+ passed, (\d+) failed/)
    // The not-scored ones too (tasks extension, header validation, SSE polling, sessions…). The suite
    // hard-codes tasks-status-notifications as SKIPPED (its harness is being rewritten), which strict
    // mode would count as a vacuous failure; vacuous scenarios are allowed here only because the
    // run above already refused them among the scored ones.
    const strict = await step('conformance server (strict)', ['bash', conformanceRun, 'server', url, 'both'], {
      ...fixture,
      CONF_STRICT: '1',
      CONF_ALLOW_VACUOUS: '1',
    })
    count(strict, 'conformance server (strict)', /conformance: (\d+) passed/, /conformance: \d+ passed, (\d+) failed/)
    // The gateway's pass-through surface in front of the same fixture must score what the fixture scores.
    const passthrough = await step('conformance passthrough (scored)', [bun, join(root, 'scripts/conformance-passthrough.ts'), 'both'])
    count(passthrough, 'conformance passthrough (scored)', /conformance: (\d+) passed/, /conformance: \d+ passed, (\d+) failed/)
    const passthroughStrict = await step(
      'conformance passthrough (strict)',
      [bun, join(root, 'scripts/conformance-passthrough.ts'), 'both'],
      { CONF_STRICT: '1', CONF_ALLOW_VACUOUS: '1' },
    )
    count(passthroughStrict, 'conformance passthrough (strict)', /conformance: (\d+) passed/, /conformance: \d+ passed, (\d+) failed/)
    // In front of the official server-everything: every scenario it passes alone passes through.
    const parity = await step('conformance passthrough (server-everything parity)', [
      bun,
      join(root, 'scripts/conformance-passthrough.ts'),
      '--upstream',
      'server-everything',
      'both',
    ])
    count(
      parity,
      'conformance passthrough (server-everything parity)',
      /conformance parity: (\d+) passed/,
      /conformance parity: \d+ passed, (\d+) failed/,
    )
    // Three replicas behind HAProxy, round-robin with no stickiness, each the pass-through surface
    // of one shared fixture over Streamable HTTP: every scenario (both sets, scored and not) passes
    // as it does through one daemon above (legacy sessions and tasks reach the replica that owns them).
    const cluster = await step('conformance cluster (strict)', [bun, join(root, 'scripts/conformance-cluster.ts'), 'both', '--no-direct'], {
      ...(existsSync(exe) && { MCPX_EXE: exe }),
      CONF_STRICT: '1',
      CONF_ALLOW_VACUOUS: '1',
    })
    count(cluster, 'conformance cluster (strict)', /conformance: (\d+) passed/, /conformance: \d+ passed, (\d+) failed/)
    const client = await step(
      'conformance client',
      ['bash', conformanceRun, 'client', `${bun} ${join(root, 'test/fixtures/conformance-client/main.ts')}`, 'both'],
      { CONF_STRICT: '1' },
    )
    count(client, 'conformance client', /conformance: (\d+) passed/, /conformance: \d+ passed, (\d+) failed/)
  }
}

console.log(`mcpx: ${passed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
