/** Tunables of the daemon: its listeners, its lifetime and its event feed. */
import { defineSettings } from './define.ts'

export const DAEMON_SETTINGS = defineSettings({
  daemonPort: {
    default: 0,
    env: 'MCPX_DAEMON_PORT',
    doc: 'Loopback TCP port of the daemon (0 = the port it chose before, kept in its run directory, else an ephemeral one; `mcpx status` shows it)',
  },
  daemonAddress: {
    default: '127.0.0.1',
    env: 'MCPX_DAEMON_ADDRESS',
    doc: 'TCP bind address; anything but loopback must be asked for and always needs the token',
  },
  daemonRequireToken: {
    default: true,
    env: 'MCPX_DAEMON_REQUIRE_TOKEN',
    doc: 'TCP requests need the bearer token; false is accepted only with a loopback daemonAddress (e.g. for the conformance suite)',
  },
  daemonAllowedHosts: {
    default: '',
    env: 'MCPX_DAEMON_ALLOWED_HOSTS',
    doc: 'Extra Host header names accepted besides localhost/127.0.0.1/[::1] (comma-separated)',
  },
  daemonAllowedOrigins: {
    default: '',
    env: 'MCPX_DAEMON_ALLOWED_ORIGINS',
    doc: 'Browser origins allowed to call the daemon (comma-separated; default none)',
  },
  daemonIdleMs: {
    default: 30 * 60_000,
    env: 'MCPX_DAEMON_IDLE_MS',
    doc: 'The daemon exits after this long with no request and no open stream (0 = never)',
  },
  daemonStartTimeoutMs: {
    default: 15_000,
    env: 'MCPX_DAEMON_START_TIMEOUT_MS',
    doc: 'How long `daemon start` (and on-demand start) waits for the daemon to listen',
  },
  daemonConnectBackoffMs: {
    default: 5,
    env: 'MCPX_DAEMON_CONNECT_BACKOFF_MS',
    doc: 'First wait before retrying a connect refused by a busy daemon (its listen backlog full); doubles each retry, within requestTimeoutMs',
  },
  daemonConnectBackoffMaxMs: {
    default: 200,
    env: 'MCPX_DAEMON_CONNECT_BACKOFF_MAX_MS',
    doc: 'Longest wait between connect retries to a busy daemon',
  },
  daemonStopTimeoutMs: {
    default: 15_000,
    env: 'MCPX_DAEMON_STOP_TIMEOUT_MS',
    doc: 'How long `daemon stop` waits for the daemon process to be gone (it answers in-flight requests first, within shutdownGraceMs)',
  },
  replicaId: {
    default: '',
    env: 'MCPX_REPLICA_ID',
    doc: "This daemon's name among replicas behind one load balancer (scripts/cluster.ts); sealed into each requestState it mints",
  },
  replicaSessionMaxAgeMs: {
    default: 24 * 60 * 60_000,
    env: 'MCPX_REPLICA_SESSION_MAX_AGE_MS',
    doc: 'Replicas: a legacy session whose replica is gone is rebuilt by another one from its sealed id for this long after its initialize; ended session ids are remembered as long (in Redis when redisUrl is set)',
  },
  redisUrl: {
    default: '',
    env: 'MCPX_REDIS_URL',
    doc: "Optional Redis shared by replicas (`redis://host:port`, Bun's built-in client): ended legacy sessions (404 on every replica), their SSE event buffers (Last-Event-ID replay on the replica that rebuilds a session) task records (a dead replica's tasks still read through any) and config-change notices (the other replicas re-read their config file at once). Never needed on one machine",
  },
  redisKeyPrefix: {
    default: 'mcpx:',
    env: 'MCPX_REDIS_KEY_PREFIX',
    doc: 'Prefix of every Redis key mcpx writes (one prefix per cluster sharing a Redis)',
  },
  replicaPeers: {
    default: '',
    env: 'MCPX_REPLICA_PEERS',
    doc: 'The other replicas as `id=http://host:port` (comma-separated): a 2026 retry whose requestState another replica minted is forwarded there',
  },
  daemonLogMaxBytes: {
    default: 4 * 1024 * 1024,
    env: 'MCPX_DAEMON_LOG_MAX_BYTES',
    doc: 'A daemon log that grows past this is moved to `<log>.1` (while the daemon runs, and at start)',
  },
  daemonLogCheckBytes: {
    default: 64 * 1024,
    env: 'MCPX_DAEMON_LOG_CHECK_BYTES',
    doc: 'The running daemon checks its log size after writing this many bytes to it',
  },
  configPollMs: {
    default: 2_000,
    env: 'MCPX_CONFIG_POLL_MS',
    doc: 'How often the daemon checks its config location, envFile and environment snapshot for changes (besides watching their directories)',
  },
  logsFollowPollMs: {
    default: 250,
    env: 'MCPX_LOGS_FOLLOW_POLL_MS',
    doc: '`mcpx logs -f`: how often the log file is checked for new lines',
  },
  daemonJitPolicy: {
    default: 1,
    env: 'MCPX_DAEMON_JIT_POLICY',
    doc: 'JIT tier-up scale of the daemon once it listens (Bun.unsafe.setJITPolicy: 1 = normal; higher keeps code that runs rarely in the interpreter, less memory for more CPU per call).',
  },
  daemonFtlJit: {
    default: false,
    env: 'MCPX_DAEMON_FTL_JIT',
    doc: "Whether a daemon the CLI starts may use JavaScriptCore's top JIT tier (FTL); off, it holds about 2 MB less and spends no more CPU per call (README Benchmarks). A BUN_JSC_useFTLJIT already in the environment wins.",
  },
  daemonIdleGcMs: {
    default: 10_000,
    env: 'MCPX_DAEMON_IDLE_GC_MS',
    doc: 'After this long with no request and no channel traffic the daemon runs one full garbage collection, so the garbage of the last burst is not kept while it idles (0 = never)',
  },
  daemonIdleShrinkMs: {
    default: 300_000,
    env: 'MCPX_DAEMON_IDLE_SHRINK_MS',
    doc: 'After this long quiet the daemon also drops its compiled code (Bun.shrink: bytecode and JIT code, then a full collection) and ends its code-mode sandboxes if no script runs; the next calls compile again and the next exec starts a sandbox (0 = never)',
  },
  daemonIdlePageOutSliceMb: {
    default: 4,
    env: 'MCPX_DAEMON_IDLE_PAGE_OUT_SLICE_MB',
    doc: "After each idle collection the daemon asks the kernel to reclaim its clean file pages now (Linux madvise MADV_PAGEOUT: its executable's code and bytecode, pages other processes also map excepted), this many MiB at a time with requests served between, stopping when one comes; the next call reads back the few it uses. Also once just before the code-mode sandboxes first start, so they do not share the pages only its start-up touched (0 = never)",
  },
  daemonEventBufferLength: {
    default: 1_000,
    env: 'MCPX_DAEMON_EVENT_BUFFER',
    doc: 'Events kept by the daemon for Last-Event-ID replay on /v1/events',
  },
})
