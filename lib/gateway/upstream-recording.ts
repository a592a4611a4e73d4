/**
 * The config's `record: "<path>"` for one pooled upstream: every connection's traffic goes to a
 * recording (lib/replay format). The first connection writes `<path>`; a reconnection (after a
 * crash) writes `<name>.<n><ext>` beside it, so the session that ended badly is kept. upstream.ts
 * loads this module with the first connection of a server that records, so a daemon that records
 * nothing never evaluates lib/replay (README "Start-up and memory").
 */
import { MCPX_CLIENT_INFO, defaultTransports } from '../client/index.ts'
import { type ServerConfig, transportKindOf } from '../config/index.ts'
import { Recorder, fileSink, recordingTransports } from '../replay/index.ts'
import { redactUrl } from './status.ts'

export interface UpstreamRecording {
  /** The client's transports, recording what they carry. */
  readonly transports: ReturnType<typeof recordingTransports>
  close(reason?: string): void
}

/** The recording of `config`'s `recordings`-th connection (1 for the first). */
export function openRecording(config: ServerConfig, path: string, recordings: number): UpstreamRecording {
  const dot = path.lastIndexOf('.')
  const file =
    recordings === 1
      ? path
      : dot > path.lastIndexOf('/')
        ? `${path.slice(0, dot)}.${recordings}${path.slice(dot)}`
        : `${path}.${recordings}`
  const target = config.target
  const recorder = new Recorder({
    sink: fileSink(file),
    mcpxVersion: MCPX_CLIENT_INFO.version,
    role: 'client',
    transport: target.kind === 'stdio' ? 'stdio' : transportKindOf(target.transport) === 'http+sse' ? 'http+sse' : 'streamable-http',
    peer: target.kind === 'stdio' ? { command: [target.command, ...target.args] } : { url: redactUrl(target.url) },
  })
  return { transports: recordingTransports(defaultTransports, recorder), close: (reason) => recorder.close(reason) }
}
