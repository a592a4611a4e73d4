/** Tunables of the client engine (lib/client) and `mcpx probe` (lib/probe). */
import { defineSettings } from './define.ts'

export const CLIENT_SETTINGS = defineSettings({
  maxListPages: { default: 100, env: 'MCPX_MAX_LIST_PAGES', doc: 'Most pages a client follows when listing tools, prompts or resources' },
  eraVerdictTtlMs: {
    default: 24 * 60 * 60_000,
    env: 'MCPX_ERA_VERDICT_TTL_MS',
    doc: 'How long a cached era/transport verdict for a server configuration is trusted',
  },
  samplingCommand: {
    default: '',
    env: 'MCPX_SAMPLING_COMMAND',
    doc: "CLI: a program (run by sh -c) that answers an upstream's sampling/createMessage: the request JSON on stdin, the CreateMessageResult JSON on stdout; empty = the CLI's calls refuse sampling",
  },
  cliSlowNoticeMs: {
    default: 1_000,
    env: 'MCPX_CLI_SLOW_NOTICE_MS',
    doc: 'CLI: after this long without an answer, say on stderr what it waits for (a spinner on a terminal, one line otherwise)',
  },
  cliEventDrainMs: {
    default: 1_000,
    env: 'MCPX_CLI_EVENT_DRAIN_MS',
    doc: "CLI: once a call or exec has its answer, how long it still waits for the daemon's last events for it (progress, console lines)",
  },
  listenReopenMs: {
    default: 500,
    env: 'MCPX_LISTEN_REOPEN_MS',
    doc: "2026: first wait before a following client opens a server's subscriptions/listen stream again after it ended (a restart); doubles while the streams keep ending within listenReopenMaxMs",
  },
  listenReopenMaxMs: {
    default: 30_000,
    env: 'MCPX_LISTEN_REOPEN_MAX_MS',
    doc: '2026: longest wait between two opens of a subscriptions/listen stream that keeps ending',
  },
  serverStreamWaitMs: {
    default: 500,
    env: 'MCPX_SERVER_STREAM_WAIT_MS',
    doc: 'Legacy HTTP: how long connect waits for the standalone GET stream to open before going on without waiting',
  },
})
