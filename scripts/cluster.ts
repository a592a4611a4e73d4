/**
 * N mcpx daemons with one config behind HAProxy on loopback (deploy/haproxy.cfg), for tests and
 * for trying a team gateway on one machine. Each replica has its own home (lock, socket, run
 * directory with its replica id, logs) but shares the config, the local token and the seal key
 * ring, so a host's token and a 2026 requestState work on every replica; each knows the others
 * (replicaPeers) so a 2026 retry reaches the replica that holds its call.
 * Usage: bun scripts/cluster.ts --config FILE [--replicas 3] [--port 0] [--dir DIR] [--no-sticky] [--keepalive]
 * Prints the load balancer's /mcp URL and the token on stdout; Ctrl-C stops everything.
 */
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ensurePrivateDir, homeLayout } from '../lib/config/index.ts'
import { acceptsConnections } from '../lib/transport/index.ts'
import { freePort } from './free-port.ts'

export { freePort }

const REPO = new URL('..', import.meta.url).pathname.replace(/\/$/, '')
const OWNER_ONLY = 0o600

export interface ClusterOptions {
  readonly config: string
  readonly replicas: number
  /** Load balancer port (0 = a free one). */
  readonly port?: number
  /** Where the replicas' homes, the key ring and haproxy.cfg go (default: a temp dir). */
  readonly dir?: string
  /** Extra environment for the daemons (MCPX_* settings). */
  readonly env?: Record<string, string>
  /** Per replica (by index): its own config file instead of `config` (replicas on several machines, each with its copy). */
  readonly configs?: readonly string[]
  /** Per replica (by index): environment on top of `env`. */
  readonly replicaEnv?: readonly Record<string, string>[]
  /** argv of mcpx (default: MCPX_EXE, else `bun cli/main.ts`). */
  readonly mcpx?: string[]
  /** The HAProxy binary (default: `haproxy` on PATH). */
  readonly haproxy?: string
  /** false: plain round-robin, no learned stickiness (legacy sessions then reach their owner by the replica hop). */
  readonly sticky?: boolean
  /** How HAProxy treats the hosts' connections (HostConnections; default 'close', as deploy/haproxy.cfg ships). */
  readonly hostConnections?: HostConnections
}

/**
 * deploy/haproxy.cfg ships 'close': every response closes the host's connection, the connections to
 * the replicas are kept and shared, and a request cut by a dying replica is HAProxy's 502.
 * 'keepalive' drops those two lines: hosts keep their connections, and a cut on a connection's
 * later request reaches the host as the connection closed (ECONNRESET, HAProxy 2.6).
 * 'httpclose': `option httpclose` instead (a connection per request on both sides; for comparison).
 */
export type HostConnections = 'close' | 'keepalive' | 'httpclose'

export interface Replica {
  readonly id: string
  /** Its place in the cluster (replicaEnv, configs). */
  readonly index: number
  readonly home: string
  readonly port: number
  readonly pid: number
}

export interface Cluster {
  readonly url: string
  readonly token: string
  readonly replicas: Replica[]
  readonly haproxyConfig: string
  /** Stop one replica gracefully; `restartReplica` brings it back on the same port. */
  stopReplica(index: number): Promise<void>
  /** SIGKILL one replica (a crash: no graceful shutdown); resolves once it is dead. */
  killReplica(index: number): Promise<void>
  restartReplica(index: number): Promise<void>
  close(): Promise<void>
}

function mcpxArgv(options: ClusterOptions): string[] {
  if (options.mcpx) return options.mcpx
  if (process.env.MCPX_EXE) return [process.env.MCPX_EXE]
  return [process.execPath, join(REPO, 'cli/main.ts')]
}

const CLOSE_HOST = /^ {4}http-after-response set-header Connection close\n/m
const SHARE_SERVER = /^ {4}http-reuse always\n/m

/** A Debian engine's executable (HAProxy, redis-server): on PATH, else in the sbin directories a plain user's PATH lacks. */
export function findEngine(name: string): string {
  return Bun.which(name) ?? Bun.which(name, { PATH: '/usr/sbin:/usr/local/sbin:/sbin' }) ?? name
}

export function haproxyConfig(
  port: number,
  replicas: readonly { id: string; port: number }[],
  sticky = true,
  hostConnections: HostConnections = 'close',
): string {
  const template = readFileSync(join(REPO, 'deploy/haproxy.cfg'), 'utf8')
  if (!CLOSE_HOST.test(template) || !SHARE_SERVER.test(template))
    throw new Error('deploy/haproxy.cfg lacks its `http-after-response set-header Connection close` or `http-reuse always` line')
  const servers = replicas.map((r) => `    server ${r.id} 127.0.0.1:${r.port} check`).join('\n')
  let config = template.replace(/^    bind .*$/m, `    bind 127.0.0.1:${port}`).replace(/(^    server .*\n?)+/m, `${servers}\n`)
  if (hostConnections !== 'close')
    config = config.replace(CLOSE_HOST, hostConnections === 'httpclose' ? '    option httpclose\n' : '').replace(SHARE_SERVER, '')
  return sticky ? config : config.replace(/^    stick.*\n/gm, '')
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'mcpx-cluster-'))
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const token = randomBytes(32).toString('hex')
  const keyFile = join(dir, 'seal.keys')
  writeFileSync(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: OWNER_ONLY })
  const argv = mcpxArgv(options)
  const port = options.port || (await freePort())
  const specs = await Promise.all(
    Array.from({ length: options.replicas }, async (_, i) => ({
      id: `replica-${i + 1}`,
      home: join(dir, `replica-${i + 1}`),
      port: await freePort(),
      index: i,
    })),
  )
  const configOf = (index: number) => options.configs?.[index] ?? options.config
  const envFor = (spec: { id: string; home: string; port: number; index: number }) => ({
    ...process.env,
    MCPX_HOME: spec.home,
    MCPX_CONFIG: configOf(spec.index),
    MCPX_DAEMON_PORT: String(spec.port),
    MCPX_SEAL_KEY_FILE: keyFile,
    MCPX_DAEMON_IDLE_MS: '0',
    // A 2026 retry that lands on another replica is forwarded to the one holding the call (replica-forward.ts).
    MCPX_REPLICA_ID: spec.id,
    MCPX_REPLICA_PEERS: specs
      .filter((other) => other.id !== spec.id)
      .map((other) => `${other.id}=http://127.0.0.1:${other.port}`)
      .join(','),
    // Pages are served from the balancer's origin, not the replica's own port (security.ts same-origin check).
    MCPX_DAEMON_ALLOWED_ORIGINS: `http://127.0.0.1:${port},http://localhost:${port}`,
    ...options.env,
    ...options.replicaEnv?.[spec.index],
  })
  const start = async (spec: { id: string; home: string; port: number; index: number }): Promise<Replica> => {
    // Each replica is the daemon of the shared config in its own home (lib/config/home.ts layout).
    const layout = homeLayout(spec.home, resolve(configOf(spec.index)))
    mkdirSync(spec.home, { recursive: true, mode: 0o700 })
    ensurePrivateDir(layout.runDir)
    // The shared local token: a host holding it reaches every replica.
    writeFileSync(layout.token, `${token}\n`, { mode: OWNER_ONLY })
    chmodSync(layout.token, OWNER_ONLY)
    writeFileSync(join(layout.runDir, 'replica'), `${spec.id}\n`)
    const proc = Bun.spawn([...argv, 'daemon', 'start', '--json'], { env: envFor(spec), stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    if (code !== 0) throw new Error(`${spec.id} did not start (exit ${code}): ${err.trim()}`)
    const info = JSON.parse(out) as { pid: number; tcp: { port: number } }
    return { ...spec, port: info.tcp.port, pid: info.pid }
  }
  const stop = async (replica: Replica) => {
    const proc = Bun.spawn([...argv, 'daemon', 'stop'], { env: envFor(replica), stdout: 'ignore', stderr: 'ignore' })
    await proc.exited
  }

  const replicas: Replica[] = []
  let haproxy: ReturnType<typeof Bun.spawn> | undefined
  try {
    for (const spec of specs) replicas.push(await start(spec))
    const haproxyConfigText = haproxyConfig(port, replicas, options.sticky ?? true, options.hostConnections)
    const cfg = join(dir, 'haproxy.cfg')
    writeFileSync(cfg, haproxyConfigText)
    haproxy = Bun.spawn([options.haproxy ?? findEngine('haproxy'), '-db', '-f', cfg], { stdout: 'ignore', stderr: 'pipe' })
    await waitListening(port, haproxy)
    return {
      url: `http://127.0.0.1:${port}/mcp`,
      token,
      replicas,
      haproxyConfig: cfg,
      stopReplica: (index) => stop(replicas[index]!),
      async killReplica(index) {
        const { pid } = replicas[index]!
        process.kill(pid, 'SIGKILL')
        // Dead means gone or a zombie (proc(5) state Z) waiting for its parent to reap it, and its port
        // refusing: a zombie leader's other threads can hold its listening socket a little longer.
        while (existsSync(`/proc/${pid}`) && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8').toString())) await Bun.sleep(20)
        while (await acceptsConnections(`http://127.0.0.1:${replicas[index]!.port}`)) await Bun.sleep(20)
      },
      async restartReplica(index) {
        replicas[index] = await start(replicas[index]!)
      },
      async close() {
        haproxy?.kill()
        await haproxy?.exited
        await Promise.all(replicas.map(stop))
      },
    }
  } catch (error) {
    haproxy?.kill()
    await Promise.all(replicas.map(stop))
    throw error
  }
}

/** HAProxy is ready when its port accepts a connection (it logs nothing by then with -db). */
export async function waitListening(port: number, proc: ReturnType<typeof Bun.spawn>): Promise<void> {
  for (;;) {
    if (proc.exitCode !== null)
      throw new Error(`haproxy exited (${proc.exitCode}): ${await new Response(proc.stderr as ReadableStream).text()}`)
    const ok = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    )
    if (ok) return
    await Bun.sleep(50)
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      config: { type: 'string' },
      replicas: { type: 'string', default: '3' },
      port: { type: 'string', default: '0' },
      dir: { type: 'string' },
      'no-sticky': { type: 'boolean', default: false },
      keepalive: { type: 'boolean', default: false },
    },
  })
  if (!values.config) {
    process.stderr.write('usage: bun scripts/cluster.ts --config FILE [--replicas 3] [--port 0] [--dir DIR] [--no-sticky] [--keepalive]\n')
    process.exit(2)
  }
  const cluster = await startCluster({
    config: values.config,
    replicas: Number(values.replicas),
    port: Number(values.port),
    sticky: !values['no-sticky'],
    hostConnections: values.keepalive ? 'keepalive' : 'close',
    ...(values.dir && { dir: values.dir }),
  })
  process.stdout.write(`${cluster.url}\ntoken ${cluster.token}\n`)
  process.stderr.write(
    `replicas: ${cluster.replicas.map((r) => `${r.id} :${r.port}`).join(', ')}; HAProxy config ${cluster.haproxyConfig}\n`,
  )
  const stop = () => void cluster.close().then(() => process.exit(0))
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}
