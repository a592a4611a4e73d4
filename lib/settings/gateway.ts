/** Tunables of the gateway: the upstream pool (restarts, catalog) and the surfaces it offers. */
import { defineSettings } from './define.ts'

export const GATEWAY_SETTINGS = defineSettings({
  restartBackoffMs: {
    default: 250,
    env: 'MCPX_RESTART_BACKOFF_MS',
    doc: 'First delay before restarting an upstream that crashed; doubles per consecutive failure',
  },
  restartBackoffMaxMs: { default: 30_000, env: 'MCPX_RESTART_BACKOFF_MAX_MS', doc: 'Longest delay between restarts of a failing upstream' },
  connectFailureHoldMs: {
    default: 1_000,
    env: 'MCPX_CONNECT_FAILURE_HOLD_MS',
    doc: 'After a failed connect, calls fail fast with that error for this long (times the backoff factor)',
  },
  surfaceReadyTimeoutMs: {
    default: 5_000,
    env: 'MCPX_SURFACE_READY_TIMEOUT_MS',
    doc: 'Longest the first host requests of a surface wait for the upstream catalogs (once, from its first use); later requests are served what has loaded, late catalogs are announced with list_changed',
  },
  configReloadDebounceMs: {
    default: 200,
    env: 'MCPX_CONFIG_RELOAD_DEBOUNCE_MS',
    doc: 'Quiet time after a config file change before the daemon reloads it',
  },
  mcpMode: {
    default: 'code-mode',
    env: 'MCPX_MCP_MODE',
    doc: 'Surface /mcp and `mcpx serve` offer by default: code-mode, raw or reactive (a request may ask with ?mode=)',
    oneOf: ['code-mode', 'raw', 'reactive'],
  },
  mcpPassthrough: {
    default: '',
    env: 'MCPX_MCP_PASSTHROUGH',
    doc: 'When set to a server name, /mcp (without parameters) offers that one upstream as itself (pass-through surface)',
  },
  ssePollAfterMs: {
    default: 0,
    env: 'MCPX_SSE_POLL_AFTER_MS',
    doc: '2025-11-25 HTTP hosts: an upstream call still running after this long has its SSE stream closed, resumed by the host with GET + Last-Event-ID (SEP-1699 polling; 0 = never)',
  },
  reactiveWorkingSetSize: {
    default: 24,
    env: 'MCPX_REACTIVE_SET_SIZE',
    doc: 'Most upstream tools the reactive surface offers at once (least recently used evicted)',
  },
})
