/**
 * The processes a benchmark run starts, each isolated in one temp dir and each with a stop that
 * leaves nothing behind: the mcpx daemon (compiled binary, own MCPX_HOME and config), supergateway
 * (stateful stdio→Streamable HTTP relay, loopback only) and mcporter's keep-alive daemon. All of them
 * front the same upstream, `echo-server.mjs` under node.
 */
import { spawn as spawnNode } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { dirname, join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { freePort } from '../free-port.ts'

export { freePort }

export const REPO = new URL('../..', import.meta.url).pathname.replace(/\/$/, '')
export const ECHO_SERVER = join(REPO, 'scripts/bench/echo-server.mjs')
const LOOPBACK = join(REPO, 'scripts/bench/loopback.cjs')
const SUPERGATEWAY = join(REPO, 'node_modules/supergateway/dist/index.js')
export const MCPORTER = join(REPO, 'node_modules/mcporter/dist/cli.js')
const READY_TIMEOUT_MS = 30_000
const STOP_GRACE_MS = 3_000

/** node runs every upstream and every node peer, as users run them (never process.execPath: bun here). */
export const NODE = Bun.which('node') ?? 'node'

/** Environment for every spawned peer: HOME and XDG dirs inside the run's temp dir. */
export function isolatedEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  const home = join(dir, 'home')
  for (const sub of ['', '.config', '.cache', '.local/state']) mkdirSync(join(home, sub), { recursive: true })
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local/state'),
    ...extra,
  }
}

/**
 * Build the compiled binary with scripts/build.ts into the run's dir (dist/ may be in use by a test
 * run); `buildFlags`: more of its flags (`--no-bytecode` for a profile that names every function).
 */
export async function buildBinary(dir: string, buildFlags: readonly string[] = []): Promise<string> {
  const outfile = join(dir, 'mcpx')
  const argv = [process.execPath, join(REPO, 'scripts/build.ts'), '--outfile', outfile, ...buildFlags]
  const proc = Bun.spawn(argv, { cwd: REPO, stdout: 'ignore', stderr: 'pipe' })
  const code = await proc.exited
  if (code !== 0) throw new Error(`build failed (${code}): ${await new Response(proc.stderr).text()}`)
  return outfile
}

async function waitForPort(port: number, child: { exitCode: number | null }): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`peer exited (${child.exitCode}) before listening on ${port}`)
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1' }, () => (socket.end(), resolve(true)))
      socket.on('error', () => resolve(false))
    })
    if (open) return
    await Bun.sleep(50)
  }
  throw new Error(`nothing listened on ${port} within ${READY_TIMEOUT_MS} ms`)
}

export interface Peer {
  readonly url: string
  /** Root of its process tree (for CPU accounting). */
  readonly pid: number
  stop(): Promise<void>
}

/** supergateway --stateful in its own process group (it spawns `/bin/sh -c node echo-server.mjs`). */
export async function startSupergateway(dir: string): Promise<Peer> {
  const port = await freePort()
  const child = spawnNode(
    NODE,
    [
      '--require',
      LOOPBACK,
      SUPERGATEWAY,
      '--stdio',
      `${NODE} ${ECHO_SERVER}`,
      '--outputTransport',
      'streamableHttp',
      '--stateful',
      '--port',
      String(port),
      '--logLevel',
      'none',
    ],
    { env: isolatedEnv(dir), stdio: ['ignore', 'ignore', 'inherit'], detached: true },
  )
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    process.kill(-child.pid!, 'SIGTERM')
    const timer = setTimeout(() => child.exitCode === null && process.kill(-child.pid!, 'SIGKILL'), STOP_GRACE_MS)
    await exited
    clearTimeout(timer)
    // The group may outlive its leader by a moment; make sure the upstream is gone too.
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {}
  }
  try {
    await waitForPort(port, child)
  } catch (error) {
    await stop()
    throw error
  }
  return { url: `http://127.0.0.1:${port}/mcp`, pid: child.pid!, stop }
}

export interface McpxDaemon {
  readonly binary: string
  readonly pid: number
  readonly env: Record<string, string>
  readonly baseUrl: string
  readonly token: string
  stop(): Promise<void>
}

/** `mcpx daemon start` with its own MCPX_HOME and a config naming `servers` (`extraEnv`: for the CLI and so the daemon). */
export async function startMcpxDaemon(
  binary: string,
  dir: string,
  servers: Record<string, unknown>,
  extraEnv: Record<string, string> = {},
): Promise<McpxDaemon> {
  const config = join(dir, 'mcpx-config.json')
  writeFileSync(config, JSON.stringify({ mcpServers: servers }, null, 2))
  const env = isolatedEnv(dir, { MCPX_HOME: join(dir, 'mcpx-home'), MCPX_CONFIG: config, ...extraEnv })
  const run = (args: string[]) => Bun.spawnSync([binary, ...args], { env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const started = run(['daemon', 'start', '--json'])
  if (started.exitCode !== 0) throw new Error(`mcpx daemon start failed: ${started.stderr.toString()}`)
  const info = JSON.parse(started.stdout.toString()) as { pid: number; tcp: { url: string }; home: string; socket: string }
  // The token lives in the daemon's run directory, beside its socket (one daemon per config location).
  const token = readFileSync(join(dirname(info.socket), 'token'), 'utf8').trim()
  return {
    binary,
    pid: info.pid,
    env,
    baseUrl: info.tcp.url,
    token,
    stop: async () => {
      const stopped = run(['daemon', 'stop'])
      if (stopped.exitCode !== 0) throw new Error(`mcpx daemon stop failed: ${stopped.stderr.toString()}`)
      // `stop` returns once the daemon stopped serving; wait until the process itself is gone.
      const deadline = Date.now() + READY_TIMEOUT_MS
      while (isRunning(info.pid) && Date.now() < deadline) await Bun.sleep(50)
      if (isRunning(info.pid)) throw new Error(`mcpx daemon ${info.pid} still running after stop`)
    },
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

export interface Mcporter {
  readonly env: Record<string, string>
  /** Its config file (for `mcporter --config … serve --stdio`). */
  readonly config: string
  readonly argv: (server: string, tool: string) => string[]
  stop(): Promise<void>
}

/** mcporter with `echo-ka` (keep-alive → its per-config daemon) and no editor imports. */
export function mcporterPeer(dir: string): Mcporter {
  const config = join(dir, 'mcporter.json')
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { 'echo-ka': { command: NODE, args: [ECHO_SERVER], lifecycle: 'keep-alive' } }, imports: [] }, null, 2),
  )
  const stateDir = join(dir, 'mcporter-state')
  if (!existsSync(stateDir)) mkdirSync(stateDir, { recursive: true })
  const env = isolatedEnv(dir, { MCPORTER_DAEMON_DIR: stateDir })
  return {
    env,
    config,
    argv: (server, tool) => [NODE, MCPORTER, '--config', config, 'call', `${server}.${tool}`, 'message=hello'],
    stop: async () => {
      Bun.spawnSync([NODE, MCPORTER, '--config', config, 'daemon', 'stop'], { env, stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' })
    },
  }
}

/** An SDK 1.x client over stdio straight to the echo upstream, and the upstream's pid. */
export async function directClient(dir: string): Promise<{ client: Client; pid: number }> {
  const client = new Client({ name: 'mcpx-bench', version: '1.0.0' })
  const transport = new StdioClientTransport({ command: NODE, args: [ECHO_SERVER], env: isolatedEnv(dir), stderr: 'ignore' })
  await client.connect(transport)
  return { client, pid: transport.pid! }
}

/** An SDK 1.x client over Streamable HTTP (optionally with a bearer token). */
export async function httpClient(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'mcpx-bench', version: '1.0.0' })
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {}
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
  return client
}

/** The canned-JSON HTTP server of http-floor.ts, in its own bun process (stdin EOF ends it). */
export function startHttpFloor(): Promise<Peer> {
  return startScriptPeer('http-floor.ts')
}

/**
 * How the relay floor's two processes are placed among sessions. Linux schedules each session as a
 * group of its own (autogroup, on in Debian's kernels), and a wake-up across groups costs more than
 * one within a group: the relay floor in the bench's own session, with its upstream, measured
 * 1–15 % faster than the same floor placed as the daemon is (README "Benchmarks", "Runs of
 * 2026-12-07 06:34–06:48 UTC").
 * - `daemon` (what the targets compare against): the floor in a session of its own, as `mcpx daemon
 *   start` places the daemon, and its upstream in another, as mcpx places every stdio upstream;
 * - `shared`: both in the bench's session, with the client (how the floor ran until 2026-12-07).
 */
export type RelayArrangement = 'daemon' | 'shared'

/** The minimal HTTP→stdio relay of relay-floor.ts (with its own echo upstream), likewise. */
export function startRelayFloor(arrangement: RelayArrangement = 'daemon', extraEnv: Record<string, string> = {}): Promise<Peer> {
  const own = arrangement === 'daemon'
  return startScriptPeer('relay-floor.ts', extraEnv, own ? ['--upstream-session=own'] : [], own)
}

/**
 * A bench helper script run by bun: it prints `{"url": …}` once listening and exits on stdin EOF.
 * `ownSession`: started with setsid (Bun's `detached`), as a daemon is.
 */
async function startScriptPeer(
  script: string,
  extraEnv: Record<string, string> = {},
  args: string[] = [],
  ownSession = false,
): Promise<Peer> {
  const child = Bun.spawn([process.execPath, join(REPO, 'scripts/bench', script), ...args], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
    env: { ...process.env, ...extraEnv },
    detached: ownSession,
  })
  const reader = child.stdout.getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`${script} exited before announcing its URL`)
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  const { url } = JSON.parse(text.slice(0, text.indexOf('\n'))) as { url: string }
  return {
    url,
    pid: child.pid,
    stop: async () => {
      child.stdin.end()
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS)
      await child.exited
      clearTimeout(timer)
    },
  }
}

/** One process to measure and the SDK call that goes through it. */
export interface ProcessTarget {
  readonly name: string
  readonly pid: number
  call(): Promise<unknown>
}

/**
 * The two targets the profiles compare: a daemon of `binary` pooling the echo server and the relay
 * floor, each with an SDK client (`/mcp?codemode=false` for the daemon), both started with
 * `extraEnv`. `stop` ends whatever was started, also when a later start failed (then it throws).
 */
export async function daemonAndRelayTargets(
  binary: string,
  dir: string,
  extraEnv: Record<string, string>,
): Promise<{ targets: ProcessTarget[]; stop(): Promise<void> }> {
  const clients: Client[] = []
  const peers: Array<{ stop(): Promise<void> }> = []
  const stop = async () => {
    await Promise.all(clients.map((client) => client.close()))
    for (const peer of peers.reverse()) await peer.stop()
  }
  try {
    const daemon = await startMcpxDaemon(binary, dir, { echo: { command: NODE, args: [ECHO_SERVER] } }, extraEnv)
    peers.push(daemon)
    const relay = await startRelayFloor('daemon', extraEnv)
    peers.push(relay)
    const viaDaemon = await httpClient(`${daemon.baseUrl}/mcp?codemode=false`, daemon.token)
    clients.push(viaDaemon)
    const viaRelay = await httpClient(relay.url)
    clients.push(viaRelay)
    const targets = [
      { name: 'daemon', pid: daemon.pid, call: () => viaDaemon.callTool({ name: 'echo_echo', arguments: { message: 'hello' } }) },
      { name: 'relay floor', pid: relay.pid, call: () => viaRelay.callTool({ name: 'echo', arguments: { message: 'hello' } }) },
    ]
    return { targets, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
