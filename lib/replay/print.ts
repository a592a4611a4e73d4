/**
 * `mcpx replay FILE --print`: a readable timeline. One line per entry: elapsed time, the message's
 * `#seq` (the number divergences and serve's hints cite), direction arrow (→ to the server, ← to
 * the client), what it is (method and JSON-RPC id, result or error), and a
 * short summary of params/result; redacted paths and HTTP status/SSE ids are shown when present.
 */
import type { Entry, MessageEntry, Recording } from './format.ts'

const MAX_SUMMARY = 100

export function formatTimeline(recording: Recording): string {
  const h = recording.header
  const peer =
    recording.peer === undefined
      ? ''
      : ` peer ${[recording.peer.name, recording.peer.version].filter(Boolean).join(' ') || recording.peer.url || (recording.peer.command ?? []).join(' ')}`
  const lines = [
    `mcpx recording v${h.formatVersion} (mcpx ${h.mcpxVersion}) ${h.createdAt} role ${h.role} over ${h.transport}, ${recording.era ?? 'era unknown'} ${recording.revision ?? ''}${peer}`.trimEnd(),
    `redacting headers [${h.redaction.headers.join(', ')}] fields [${h.redaction.fields.join(', ')}]`,
  ]
  for (const entry of recording.entries) lines.push(formatEntry(entry))
  return `${lines.join('\n')}\n`
}

export function formatEntry(entry: Entry): string {
  const time = `+${(entry.t / 1000).toFixed(3)}s`.padStart(10)
  if (entry.type === 'negotiated') {
    const peer = entry.peer?.name === undefined ? '' : ` with ${entry.peer.name}${entry.peer.version ? ` ${entry.peer.version}` : ''}`
    return `${time}   negotiated ${entry.era} ${entry.revision}${peer}`
  }
  if (entry.type === 'http') {
    const h = entry.http
    const what = [
      h.method,
      h.status === undefined ? undefined : `HTTP ${h.status}`,
      h.headers?.['last-event-id'] === undefined ? undefined : `Last-Event-ID ${h.headers['last-event-id']}`,
    ]
      .filter(Boolean)
      .join(' ')
    return `${time} ${entry.direction === 'to-server' ? '→' : '←'} (http) ${what}`
  }
  if (entry.type === 'close') return `${time}   closed${entry.reason === undefined ? '' : `: ${entry.reason}`}`
  // `#seq` is the recording's one numbering: divergence reports and `--serve` hints use it too.
  return `${time} #${entry.seq} ${entry.direction === 'to-server' ? '→' : '←'} ${describe(entry)}`
}

function describe(entry: MessageEntry): string {
  const m = entry.message
  const id = 'id' in m ? ` (id ${JSON.stringify(m.id)})` : ''
  let text: string
  if (typeof m.method === 'string') text = `${m.method}${id}${summary(m.params)}`
  else if ('error' in m) {
    const error = m.error as { code?: unknown; message?: unknown }
    text = `error${id} ${String(error?.code)} ${String(error?.message ?? '')}`
  } else text = `result${id}${summary(m.result)}`
  const extras: string[] = []
  if (entry.http?.status !== undefined) extras.push(`HTTP ${entry.http.status}`)
  if (entry.http?.sse?.id !== undefined) extras.push(`sse id ${entry.http.sse.id}`)
  if (entry.redacted !== undefined) extras.push(`redacted ${entry.redacted.join(', ')}`)
  return extras.length === 0 ? text : `${text}  [${extras.join('; ')}]`
}

function summary(value: unknown): string {
  if (value === undefined) return ''
  const text = JSON.stringify(value)
  if (text === '{}') return ''
  return ` ${text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY - 3)}...` : text}`
}
