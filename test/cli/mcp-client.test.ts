/**
 * The CLI as a complete MCP client, against real npm servers as upstreams (server-everything,
 * server-filesystem, server-memory, pinned as devDependencies): resources, prompts, roots,
 * elicitation (--answers, a declined one off a terminal, the form on a pseudo-terminal),
 * sampling only with samplingCommand, array and dotted arguments, ad-hoc targets, completion.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT, errorJson, mcpxCommand, runMcpx } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'
import { layoutForEnv } from '../support/layout.ts'
import { SIGN_IN_URL } from '../fixtures/peers/url-elicit-fixture-url.ts'
import { freePort } from '../../scripts/free-port.ts'

const user = isolatedUser('mcpx-client')
const bin = (name: string) => join(REPO_ROOT, 'node_modules/@modelcontextprotocol', name, 'dist/index.js')
const servers = {
  everything: { command: 'node', args: [bin('server-everything')] },
  // No directory argument: server-filesystem takes its allowed directories from the client's roots.
  fs: { command: 'node', args: [bin('server-filesystem')] },
  memory: { command: 'node', args: [bin('server-memory')], env: { MEMORY_FILE_PATH: join(user.home, 'memory.jsonl') } },
  // Asks for a URL-mode elicitation (SDK 1.x; it asks only a client that declared URL mode).
  url: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/url-elicit-fixture.ts')] },
}
const env = { ...user.env }
const run = (argv: string[], options: { stdin?: string; env?: Record<string, string> } = {}) =>
  runMcpx(argv, { env: { ...env, ...options.env }, cwd: user.project, ...(options.stdin !== undefined && { stdin: options.stdin }) })

beforeAll(() => {
  mkdirSync(join(user.home, '.config', 'mcpx'), { recursive: true })
  writeFileSync(user.configFile, JSON.stringify({ mcpServers: servers }))
  writeFileSync(join(user.project, 'hello.txt'), 'hello from the project\n')
})
afterAll(async () => {
  await run(['daemon', 'stop'])
  user[Symbol.dispose]()
})

describe('roots', () => {
  test('server-filesystem gets the working directory as its root (no "no roots" warning)', async () => {
    // server-filesystem asks for roots after the handshake and applies them asynchronously: the
    // first answer may predate them, so ask until they are in (bounded).
    let listed = await run(['call', 'fs.list_allowed_directories'])
    for (let i = 0; i < 20 && !listed.stdout.includes(user.project); i++) {
      await Bun.sleep(100)
      listed = await run(['call', 'fs.list_allowed_directories'])
    }
    expect(listed.exitCode).toBe(0)
    expect(listed.stdout).toContain(user.project)
    const read = await run(['call', 'fs.read_text_file', 'path=hello.txt'])
    expect(read.stdout).toBe('hello from the project\n')
    const log = readFileSync(layoutForEnv(env).daemonLog, 'utf8')
    expect(log).not.toMatch(/\[fs stderr\] Failed to request initial roots/)
    expect(log).toMatch(/\[fs stderr\] Updated allowed directories from MCP roots/)
  })

  test('a tool result with isError writes the error line, also with --json', async () => {
    const denied = await run(['call', 'fs.read_text_file', 'path=/etc/hostname', '--json'])
    expect(denied.exitCode).toBe(1)
    expect(JSON.parse(denied.stdout).isError).toBe(true)
    expect(errorJson(denied.stderr).error).toEqual({ code: 'TOOL', message: 'fs.read_text_file returned isError' })
  })
})

describe('resources and prompts', () => {
  test('resource read prints text', async () => {
    const listed = await run(['resource', 'list', 'everything'])
    expect(listed.stdout).toContain('demo://resource/static/document/architecture.md')
    // The media types line up in their own column, whatever the names' lengths.
    const mimeColumns = new Set(
      listed.stdout
        .split('\n')
        .filter((line) => /text\/markdown$/.test(line))
        .map((line) => line.indexOf('text/markdown')),
    )
    expect(mimeColumns.size).toBe(1)
    const read = await run(['resource', 'read', 'everything', 'demo://resource/static/document/architecture.md'])
    expect(read.exitCode).toBe(0)
    expect(read.stdout).toStartWith('# Everything Server')
  })

  test('resource read of a blob: summarised, or written with --out', async () => {
    const summary = await run(['resource', 'read', 'everything', 'demo://resource/dynamic/blob/1'])
    expect(summary.stdout).toMatch(/^\[blob demo:\/\/resource\/dynamic\/blob\/1, [^,]+, \d+ bytes; --out FILE writes it\]\n$/)
    const out = join(user.project, 'blob.bin')
    const written = await run(['resource', 'read', 'everything', 'demo://resource/dynamic/blob/1', '--out', out])
    expect(written.exitCode).toBe(0)
    expect(written.stdout).toBe('')
    expect(existsSync(out)).toBe(true)
    // The blob is decoded: the file holds the bytes the message counts (the content itself is dynamic).
    const bytes = Number(/wrote (\d+) bytes/.exec(written.stderr)?.[1])
    expect(bytes).toBeGreaterThan(0)
    expect(readFileSync(out).length).toBe(bytes)
    const json = JSON.parse((await run(['resource', 'read', 'everything', 'demo://resource/dynamic/blob/1', '--json'])).stdout)
    expect(typeof json.contents[0].blob).toBe('string')
  })

  test("call --out writes the result's image, decoded; a result without one is printed, and refused", async () => {
    const out = join(user.project, 'logo.png')
    const image = await run(['call', 'everything.get-tiny-image', '--out', out])
    expect(image.exitCode).toBe(0)
    expect(image.stdout).toContain(`[image image/png, ${readFileSync(out).length} bytes; written to ${out}]`)
    expect(image.stderr).toContain(`wrote ${readFileSync(out).length} bytes (image/png) to ${out}`)
    expect([...readFileSync(out).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47])
    // Without --out the summary says how to get the bytes.
    expect((await run(['call', 'everything.get-tiny-image'])).stdout).toMatch(/\[image image\/png, \d+ bytes; --out FILE writes it\]/)
    const none = join(user.project, 'none.bin')
    const text = await run(['call', 'everything.echo', 'message=plain', '--out', none])
    expect(text.exitCode).toBe(2)
    expect(text.stdout).toBe('Echo: plain\n')
    expect(errorJson(text.stderr).error.message).toBe(`everything.echo returned no image, audio or binary resource to write to ${none}`)
    expect(existsSync(none)).toBe(false)
  })

  test('prompt get with arguments; a missing one is named', async () => {
    const listed = await run(['prompt', 'list', 'everything'])
    expect(listed.stdout).toContain('args-prompt(city, [state])')
    const got = await run(['prompt', 'get', 'everything.args-prompt', 'city=Paris', 'state=Texas'])
    expect(got.exitCode).toBe(0)
    expect(got.stdout).toMatch(/^user: .*Paris, Texas/m)
    // The name as the list prints it, after the server.
    const twoWords = await run(['prompt', 'get', 'everything', 'args-prompt', 'city=Paris'])
    expect(twoWords.exitCode).toBe(0)
    expect(twoWords.stdout).toMatch(/^user: .*Paris/m)
    const missing = await run(['prompt', 'get', 'everything.args-prompt'])
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toMatch(/missing required argument: city/)
  })
})

describe('elicitation and sampling', () => {
  test('--answers answers an elicitation', async () => {
    const answers = join(user.project, 'answers.json')
    writeFileSync(answers, JSON.stringify({ name: 'Ada', check: true, email: 'ada@example.com' }))
    const result = await run(['call', 'everything.trigger-elicitation-request', '--answers', answers])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toMatch(/"action": "accept"/)
    expect(result.stdout).toContain('Ada')
  })

  test('an --answers entry that does not fit the form is declined, naming each field that does not', async () => {
    const answers = join(user.project, 'wrong-answers.json')
    writeFileSync(answers, JSON.stringify({ check: 'yes', integer: 500, nickname: 'x' }))
    const result = await run(['call', 'everything.trigger-elicitation-request', '--answers', answers])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toMatch(/"action": "decline"/)
    expect(result.stderr).toContain(
      `mcpx: the --answers entry for everything's "Please provide inputs for the following fields:" does not fit its form (name: required; check: true or false, got "yes"; integer: at most 100, got 500; nickname: the form has no such field); declined`,
    )
  })

  test('off a terminal without --answers it is declined, with a message saying how to answer', async () => {
    const result = await run(['call', 'everything.trigger-elicitation-request'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toMatch(/"action": "decline"/)
    expect(result.stderr).toMatch(/declined \(no terminal to ask on; answer with --answers FILE\)/)
  })

  test('on a pseudo-terminal the form asks each field (script -q)', async () => {
    await using proc = underPty(['call', 'everything.trigger-elicitation-request'])
    const output = new Response(proc.stdout).text()
    // Typed once each prompt is up: answer now, name, agree, (default story line), email, then defaults.
    const typed = ['\n', 'Grace\n', 'y\n', '\n', 'grace@example.com\n']
    for (const line of typed) {
      await Bun.sleep(800)
      proc.stdin.write(line)
    }
    for (let i = 0; i < 12; i++) {
      await Bun.sleep(300)
      proc.stdin.write('\n')
    }
    proc.stdin.end()
    const text = await output
    await proc.exited
    expect(text).toContain('Answer now? [Y]es / [d]ecline')
    expect(text).toMatch(/"action": "accept"/)
    expect(text).toContain('Grace')
  })

  test('on a pseudo-terminal Ctrl-C cancels the form, and the next output starts on its own line', async () => {
    await using proc = underPty(['call', 'everything.trigger-elicitation-request'])
    const reader = proc.stdout.getReader()
    let seen = ''
    const until = async (text: string) => {
      while (!seen.includes(text)) {
        const chunk = await reader.read()
        if (chunk.done) throw new Error(`ended before "${text}": ${seen}`)
        seen += new TextDecoder().decode(chunk.value)
      }
    }
    await until('Answer now?')
    proc.stdin.write('y\n')
    await until('legal name: ')
    proc.stdin.write('\x03')
    await until('"action": "cancel"')
    // (readline moves the cursor with ESC[nG on a terminal)
    expect(seen).toMatch(/legal name: (\u001b\[\d+G)?\r?\n[^\n]*User cancelled/)
    proc.stdin.end()
    expect(await proc.exited).toBe(0)
  })

  test('URL mode: --answers accepts; off a terminal it is declined naming the URL; on a terminal the full URL and a consent prompt', async () => {
    const answers = join(user.project, 'accept.json')
    writeFileSync(answers, JSON.stringify({ action: 'accept' }))
    const accepted = await run(['call', 'url.sign_in', '--answers', answers])
    expect(accepted).toMatchObject({ exitCode: 0, stdout: 'action: accept\n' })
    const declined = await run(['call', 'url.sign_in'])
    expect(declined).toMatchObject({ exitCode: 0, stdout: 'action: decline\n' })
    expect(declined.stderr).toContain(
      `mcpx: url asked to open ${SIGN_IN_URL}: "Sign in to continue" — declined (no terminal to ask on; answer with --answers FILE)`,
    )
    await using proc = underPty(['call', 'url.sign_in'], { MCPX_CLI_SLOW_NOTICE_MS: '0' })
    const reader = proc.stdout.getReader()
    let seen = ''
    while (!seen.includes('[y/N]')) {
      const chunk = await reader.read()
      if (chunk.done) throw new Error(`ended before the consent prompt: ${seen}`)
      seen += new TextDecoder().decode(chunk.value)
    }
    expect(seen).toContain(`  URL: ${SIGN_IN_URL}`)
    // The spinner (shown at once here) stopped for the question and does not come back after it.
    const prompt = 'Consent to visit this URL (open it yourself)? [y/N] '
    await Bun.sleep(300)
    proc.stdin.write('y\n')
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) seen += new TextDecoder().decode(chunk.value)
    expect(seen).toContain(prompt)
    expect(seen.slice(seen.indexOf(prompt))).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/)
    expect(seen).toContain('action: accept')
    expect(await proc.exited).toBe(0)
  })

  test('sampling is answered only when samplingCommand names a program', async () => {
    const refused = await run(['call', 'everything.trigger-sampling-request', 'prompt=hi'])
    expect(refused.stdout + refused.stderr).toMatch(/-32021|did not declare/)
    const program = join(user.project, 'sample.sh')
    writeFileSync(
      program,
      `#!/bin/sh\ncat > /dev/null\necho '{"role":"assistant","content":{"type":"text","text":"sampled!"},"model":"test-model","stopReason":"endTurn"}'\n`,
      { mode: 0o755 },
    )
    const answered = await run(['call', 'everything.trigger-sampling-request', 'prompt=hi'], { env: { MCPX_SAMPLING_COMMAND: program } })
    expect(answered.exitCode).toBe(0)
    expect(answered.stdout).toContain('sampled!')
    // An answer that is no CreateMessageResult is refused to the upstream saying what it lacks, not passed on.
    const partial = join(user.project, 'partial.sh')
    writeFileSync(partial, `#!/bin/sh\ncat > /dev/null\necho '{"role":"system","content":"sampled"}'\n`, { mode: 0o755 })
    const refusedShape = await run(['call', 'everything.trigger-sampling-request', 'prompt=hi'], {
      env: { MCPX_SAMPLING_COMMAND: partial },
    })
    expect(refusedShape.stdout + refusedShape.stderr).toContain(
      'samplingCommand printed no CreateMessageResult: `role` must be "user" or "assistant"; `content` must be a content block with a `type` (or a list of them); `model` must name the model that answered',
    )
  })
})

describe('arguments and tool listing', () => {
  test('a single value for an array parameter becomes a one-element array; dotted keys build objects', async () => {
    const created = await run([
      'call',
      'memory.create_entities',
      'entities.0.name=ada',
      'entities.0.entityType=person',
      'entities.0.observations=likes engines',
    ])
    expect(created.exitCode).toBe(0)
    const opened = await run(['call', 'memory.open_nodes', 'names=ada', '--json'])
    expect(opened.exitCode).toBe(0)
    expect(JSON.stringify(JSON.parse(opened.stdout))).toContain('likes engines')
  })

  test('tools shows TypeScript types and marks task-only tools', async () => {
    const result = await run(['tools', 'everything'])
    expect(result.stdout).toMatch(/everything\.get-annotated-message\(messageType: "error" \| "success" \| "debug"/)
    expect(result.stdout).toMatch(/everything\.simulate-research-query\(.*\)  \[task-only\]/)
    const fs = await run(['tools', 'fs'])
    expect(fs.stdout).toMatch(/fs\.read_multiple_files\(paths: string\[\]\)/)
    // An MCP Apps tool only its app may call (_meta.ui.visibility ["app"]) is marked app-only.
    const apps = await run(['tools', '--stdio', `${process.execPath} ${join(REPO_ROOT, 'test/fixtures/peers/app-only-fixture.ts')}`])
    expect(apps.exitCode).toBe(0)
    expect(apps.stdout).toMatch(/^ {2}refresh\(\) {2}\[app-only\] {2}Refresh the board/m)
    expect(apps.stdout).toMatch(/^ {2}show\(\) {2}Show the board$/m)
  })

  test('tools server.tool shows one tool in full: description and every parameter; a misspelt one gets a did-you-mean', async () => {
    const one = await run(['tools', 'everything.get-sum'])
    expect(one.exitCode).toBe(0)
    const lines = one.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('everything.get-sum(a: number, b: number)')
    expect(lines).toContain('  parameters:')
    expect(lines.filter((line) => /^ {4}[ab]: number {2}\(required\)/.test(line))).toHaveLength(2)
    const typo = await run(['tools', 'everything.get-summ'])
    expect(typo.exitCode).toBe(2)
    expect(errorJson(typo.stderr).error.message).toBe('server "everything" has no tool "get-summ" (did you mean everything.get-sum?)')
  })

  test('simulate-research-query (task-required) completes through mcpx call, with progress lines on stderr', async () => {
    // The gateway runs the upstream task itself (lib/gateway/task-runner.ts) and reports each
    // status as progress; off a terminal --progress writes them as plain lines.
    const result = await run(['call', 'everything.simulate-research-query', 'topic=bees', '--progress'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toStartWith('# Research Report: bees')
    expect(result.stdout).not.toContain('simulate-research-query:')
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('everything.simulate-research-query: '))
    expect(lines.length).toBeGreaterThan(1)
    expect(lines[0]).toMatch(/^everything\.simulate-research-query: 1 working/)
    expect(result.stderr).not.toContain('\r')
    // Without --progress (stderr is no terminal here) the same call shows none.
    const quiet = await run(['call', 'everything.simulate-research-query', 'topic=ants'])
    expect(quiet.exitCode).toBe(0)
    expect(quiet.stdout).toStartWith('# Research Report: ants')
    expect(quiet.stderr).not.toContain('everything.simulate-research-query: ')
  })
})

describe('tasks', () => {
  test("tasks list and get show a running upstream task; an unknown id is the peer's error (exit 5)", async () => {
    await using running = Bun.spawn([...mcpxCommand(), 'call', 'everything.simulate-research-query', 'topic=wasps'], {
      cwd: user.project,
      env: { ...process.env, ...env },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    let listed = await run(['tasks', 'list', 'everything', '--json'])
    for (let i = 0; i < 50 && !listed.stdout.includes('"working"'); i++) {
      await Bun.sleep(100)
      listed = await run(['tasks', 'list', 'everything', '--json'])
    }
    expect(listed.exitCode).toBe(0)
    const task = (JSON.parse(listed.stdout) as { tasks: { taskId: string; status: string }[] }).tasks.find((t) => t.status === 'working')!
    const got = await run(['tasks', 'get', 'everything', task.taskId])
    expect(got.exitCode).toBe(0)
    expect(got.stdout).toStartWith(`${task.taskId}  `)
    expect(await running.exited).toBe(0)
    const missing = await run(['tasks', 'get', 'everything', 'no-such-task'])
    expect(missing.exitCode).toBe(5)
    expect(missing.stdout).toBe('')
    // The peer's JSON-RPC code comes through the daemon's /v1 to the error line.
    expect(errorJson(missing.stderr).error).toMatchObject({ code: 'PEER', rpcCode: expect.any(Number) })
  })

  test('a server that keeps no tasks says so, by name (exit 2)', async () => {
    const listed = await run(['tasks', 'list', 'memory'])
    expect(listed.exitCode).toBe(2)
    expect(listed.stdout).toBe('')
    expect(listed.stderr).toStartWith('mcpx: memory does not serve tasks/list (it answered -32601, method not found)\n')
    expect(errorJson(listed.stderr).error).toMatchObject({ code: 'NOT_FOUND', data: { server: 'memory', method: 'tasks/list' } })
  })
})

describe('exec', () => {
  test('every tool is reachable by its exact upstream name, and mcpx types shows both spellings', async () => {
    const exact = await run(['exec', '-'], { stdin: 'return await everything["get-sum"]({ a: 2, b: 3 })' })
    expect(exact.exitCode).toBe(0)
    expect(exact.stdout).toContain('5')
    const byCall = await run(['exec', '-'], { stdin: 'return await everything.call("get-sum", { a: 4, b: 4 })' })
    expect(byCall.stdout).toContain('8')
    const types = await run(['types', 'everything.get-sum'])
    expect(types.stdout).toContain('(MCP name: everything.get-sum; also callable as ["get-sum"](args) or .call("get-sum", args))')
  })

  test('console lines reach stderr as they are written, before the script ends', async () => {
    const script =
      'console.log("first")\nawait everything["trigger-long-running-operation"]({ duration: 2, steps: 2 })\nconsole.log("second")\nreturn "done"'
    await using proc = Bun.spawn([...mcpxCommand(), 'exec', '-'], {
      cwd: user.project,
      env: { ...process.env, ...env },
      stdin: new Blob([script]),
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const reader = proc.stderr.getReader()
    let seen = ''
    while (!seen.includes('first\n')) {
      const chunk = await reader.read()
      if (chunk.done) break
      seen += new TextDecoder().decode(chunk.value)
    }
    // "first" arrived while the script still waits on the long-running tool.
    expect(seen).toContain('first\n')
    expect(seen).not.toContain('second')
    expect(proc.exitCode).toBeNull()
    let rest = ''
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value)
    expect(await new Response(proc.stdout).text()).toBe('done\n')
    expect(rest).toContain('second\n')
    expect(await proc.exited).toBe(0)
  })

  test("import gets a clear message; a runtime error on line 1 has the script's own column", async () => {
    const imported = await run(['exec', '-'], { stdin: 'import fs from "fs"\nreturn 1' })
    expect(imported.exitCode).toBe(1)
    expect(imported.stderr).toMatch(/import is not available in the mcpx sandbox \(line 1\)/)
    const required = await run(['exec', '-'], { stdin: 'const fs = require("fs")\nreturn 1' })
    expect(required.exitCode).toBe(1)
    expect(required.stdout).toBe('')
    expect(required.stderr).toMatch(/^mcpx: ReferenceError: 'require' is not defined: there is no module loader in the mcpx sandbox/)
    const thrown = await run(['exec', '-', '--json'], { stdin: 'x.y' })
    expect(errorJson(thrown.stderr).error.data?.stack).toBe('    at <anonymous> (script.js:1:1)\n')
  })
})

describe('ad-hoc targets', () => {
  test('--stdio "command" runs a server without any config', async () => {
    const result = await run(['call', '--stdio', `node ${bin('server-everything')}`, 'echo', 'message=adhoc'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toBe('Echo: adhoc\n')
    const tools = await run(['tools', '--stdio', `node ${bin('server-memory')}`])
    expect(tools.stdout).toContain('read_graph()')
  })

  test('a URL names an HTTP server; the tool comes next', async () => {
    const port = await freePort()
    await using server = Bun.spawn(['node', bin('server-everything'), 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdout: 'ignore',
      stderr: 'pipe',
    })
    await untilListening(server.stderr)
    try {
      const result = await run(['call', `http://127.0.0.1:${port}/mcp`, 'echo', 'message=over http'])
      expect(result.exitCode).toBe(0)
      expect(result.stdout).toBe('Echo: over http\n')
    } finally {
      server.kill()
    }
  })
})

describe('completion', () => {
  test('bash: `mcpx call ev<TAB>` completes to the server name', async () => {
    const script = (await run(['completion', 'bash'])).stdout
    const file = join(user.project, 'completion.bash')
    writeFileSync(file, script)
    const probe = `source '${file}'; COMP_WORDS=(mcpx call ev); COMP_CWORD=2; _mcpx; printf '%s\\n' "\${COMPREPLY[@]}"`
    await using proc = Bun.spawn(['bash', '-c', probe], {
      cwd: user.project,
      env: { ...process.env, ...env },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect((await new Response(proc.stdout).text()).trim()).toBe('everything.')
    const tools = `source '${file}'; COMP_WORDS=(mcpx call everything.ec); COMP_CWORD=2; _mcpx; printf '%s\\n' "\${COMPREPLY[@]}"`
    await using proc2 = Bun.spawn(['bash', '-c', tools], {
      cwd: user.project,
      env: { ...process.env, ...env },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect((await new Response(proc2.stdout).text()).trim()).toBe('everything.echo')
  })

  test('a line that names its config, before or after the command, completes from that config', async () => {
    const other = join(user.project, 'other.json')
    writeFileSync(other, JSON.stringify({ mcpServers: { zeta: { command: 'zeta-server' } } }))
    const names = async (...words: string[]) => (await run(['completion', 'names', '--', ...words])).stdout.trim()
    expect(await names('--config', other, 'call', 'z')).toBe('zeta.')
    expect(await names('call', `--config=${other}`, '--json', 'z')).toBe('zeta.')
    expect(await names('--json', 'ser')).toBe('servers\nserve')
    expect(await names('call', 'z')).toBe('')
  })
})

describe('completion (fish)', () => {
  test('fish: `mcpx call ev<TAB>` completes to the server name, also from a binary whose path has a space', async () => {
    const file = join(user.project, 'completion.fish')
    writeFileSync(file, (await run(['completion', 'fish'])).stdout)
    await using proc = Bun.spawn(
      ['fish', '--no-config', '-c', `source '${file}'; complete -C 'mcpx call ev'; complete -C 'mcpx call everything.ec'`],
      { cwd: user.project, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' },
    )
    expect((await new Response(proc.stdout).text()).trim().split('\n')).toEqual(['everything.', 'everything.echo'])
    expect(await proc.exited).toBe(0)
    // The script names the binary as it runs (ctx.self): a path with a space stays one word.
    const spaced = join(user.project, 'with space.fish')
    const script = (await run(['completion', 'fish'])).stdout
    expect(script).toMatch(/^function __mcpx_complete\n {2}'[^\n]+' completion names -- /)
    writeFileSync(spaced, script.replace(/^( {2})'[^']*'/m, `$1'${join(user.project, 'dir with space', 'mcpx')}'`))
    mkdirSync(join(user.project, 'dir with space'), { recursive: true })
    writeFileSync(
      join(user.project, 'dir with space', 'mcpx'),
      `#!/bin/sh\nexec ${mcpxCommand()
        .map((part) => `'${part}'`)
        .join(' ')} "$@"\n`,
      { mode: 0o755 },
    )
    await using fish = Bun.spawn(['fish', '--no-config', '-c', `source '${spaced}'; complete -C 'mcpx call ev'`], {
      cwd: user.project,
      env: { ...process.env, ...env },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect((await new Response(fish.stdout).text()).trim()).toBe('everything.')
  })
})

/** server-everything says "listening on port N" on stderr once it accepts connections. */
/** The compiled mcpx under a pseudo-terminal (util-linux `script -q`), stdin and stdout piped for the test to drive. */
function underPty(args: string[], extraEnv: Record<string, string> = {}) {
  const command = [...mcpxCommand(), ...args].map((part) => `'${part}'`).join(' ')
  return Bun.spawn(['script', '-q', '-e', '-c', command, '/dev/null'], {
    cwd: user.project,
    env: { ...process.env, ...env, ...extraEnv },
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  })
}

async function untilListening(stderr: ReadableStream<Uint8Array>): Promise<void> {
  const decoder = new TextDecoder()
  let seen = ''
  const reader = stderr.getReader()
  while (!/listening on port/i.test(seen)) {
    const chunk = await reader.read()
    if (chunk.done) throw new Error(`server exited before listening: ${seen}`)
    seen += decoder.decode(chunk.value)
  }
  reader.releaseLock()
}
