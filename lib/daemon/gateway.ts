/**
 * The daemon as mcpx runs it: the listeners and /v1 of startDaemon, with the gateway's connecting
 * upstream pool (every configured server, lazily connected) in place of the configured-only pool.
 */
import { UpstreamPool } from '../gateway/index.ts'
import { type Daemon, type DaemonOptions, startDaemon } from './daemon.ts'
import type { Pool } from './pool.ts'

export async function startGatewayDaemon(options: Omit<DaemonOptions, 'createPool'>): Promise<Daemon> {
  return startDaemon({
    ...options,
    createPool: ({ config, settings, emit }): Pool => new UpstreamPool({ config, settings, emit, cacheDir: options.layout.cacheDir }),
  })
}
