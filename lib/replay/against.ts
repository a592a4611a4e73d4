/**
 * `mcpx replay FILE --against <url | -- command>`: play the recorded client side to a live server
 * and compare each answer with the recorded one (volatile fields set aside, volatile.ts). Requests
 * go out in recorded order, each after the previous answer; server→client requests the live server
 * makes are answered with what the recorded client answered. Raw transports: the messages sent are
 * the recorded ones, not a client engine's reconstruction.
 */
import type { Settings } from '../settings/index.ts'
import type { Transport } from '../transport/index.ts'
import {
  isRequest,
  isResponse,
  makeError,
  makeResult,
  methodNotFound,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../wire/index.ts'
import { diffValues, formatDifferences, type Difference } from './diff.ts'
import { REDACTED, type Recording } from './format.ts'
import { HeaderMirror } from './header-mirror.ts'
import { buildExchanges, type Exchange } from './matcher.ts'
import { normalize, volatileFields, type VolatileField } from './volatile.ts'

export interface Divergence {
  readonly seq: number
  readonly method: string
  readonly params: unknown
  /** `response`: the answers differ; `no-response`: none within requestTimeoutMs; `closed`: the server went away. */
  readonly kind: 'response' | 'no-response' | 'closed'
  readonly differences: readonly Difference[]
}

export interface AgainstReport {
  readonly requests: number
  readonly matched: number
  readonly divergences: readonly Divergence[]
  /** Requests whose recorded params had redacted values (sent as "[REDACTED]"). */
  readonly redactedInputs: readonly number[]
  /** Requests the recording has no response to (sent, not compared): e.g. a listen stream still open. */
  readonly unanswered: readonly number[]
}

export interface AgainstOptions {
  readonly settings: Pick<Settings, 'requestTimeoutMs'>
  readonly volatile?: readonly string[]
}

/** Replay `recording`'s client side over `transport` (not yet started) and report divergences. */
export async function replayAgainst(recording: Recording, transport: Transport, options: AgainstOptions): Promise<AgainstReport> {
  const fields = volatileFields(options.volatile)
  const exchanges = buildExchanges(recording)
  const byRequestSeq = new Map<number, Exchange>(exchanges.map((e) => [e.request.seq, e]))
  const mirror = new HeaderMirror()
  const waiters = new Map<string, (message: JsonRpcResponse | undefined) => void>()
  let current: Exchange | undefined
  // Recorded server→client requests already answered: a second elicitation in one call gets the second recorded answer.
  const asked = new Set<object>()
  // Differences in the server requests of the current exchange, reported with its response.
  let asides: Difference[] = []
  let inFlight = false
  let closed = false

  await transport.start({
    onMessage(message) {
      mirror.received(message)
      if (isResponse(message)) waiters.get(JSON.stringify(message.id))?.(message)
      else if (isRequest(message)) {
        // What the server asks mid-call (legacy elicitation, sampling, roots) is compared too.
        const reply = replyTo(message, current, asked, fields)
        if (inFlight) asides.push(...reply.differences)
        void transport.send(reply.message).catch(() => {})
      }
    },
    onClose() {
      closed = true
      for (const resolve of waiters.values()) resolve(undefined)
    },
  })

  const send = async (message: JsonRpcMessage): Promise<void> => {
    mirror.sent(message)
    const headers = transport.kind === 'stdio' ? undefined : mirror.headersFor(message)
    await transport.send(message, headers === undefined ? undefined : { headers })
  }

  const divergences: Divergence[] = []
  const redactedInputs: number[] = []
  const unanswered: number[] = []
  // Server-minted handles the recorded client echoed back (2026 MRTR requestState, task ids): the
  // live server mints its own, so later requests carry the live value in their place.
  const carried = new Map<string, unknown>()
  let requests = 0
  try {
    for (const entry of recording.messages) {
      if (entry.direction !== 'to-server' || closed) continue
      const exchange = byRequestSeq.get(entry.seq)
      if (exchange === undefined) {
        // Client notifications go out as recorded; client responses are sent when asked for.
        if (typeof entry.message.method === 'string') await send(entry.message as unknown as JsonRpcMessage).catch(() => {})
        continue
      }
      current = exchange
      asides = []
      const request = substitute(entry.message as unknown as JsonRpcRequest, carried)
      const recordedResponse = exchange.answer.find((a) => typeof a.message.method !== 'string')?.message
      if (recordedResponse === undefined) {
        // Still open when the recording ended (a 2026 subscriptions/listen stream, a call cut short):
        // sent as recorded so the session stays the same, but there is no answer to compare with.
        unanswered.push(entry.seq)
        await send(request).catch(() => {})
        continue
      }
      requests++
      if (JSON.stringify(entry.message.params ?? {}).includes(JSON.stringify(REDACTED))) redactedInputs.push(entry.seq)
      const answered = new Promise<JsonRpcResponse | undefined>((resolve) => {
        const key = JSON.stringify(request.id)
        const timer =
          options.settings.requestTimeoutMs > 0 ? setTimeout(() => resolve(undefined), options.settings.requestTimeoutMs) : undefined
        waiters.set(key, (message) => {
          if (timer !== undefined) clearTimeout(timer)
          waiters.delete(key)
          resolve(message)
        })
      })
      inFlight = true
      await send(request).catch(() => {})
      const live = await answered
      inFlight = false
      const base = { seq: entry.seq, method: exchange.method, params: request.params ?? {} }
      if (live === undefined) {
        divergences.push({ ...base, kind: closed ? 'closed' : 'no-response', differences: [] })
        continue
      }
      learnCarried(recordedResponse, live, carried)
      const differences = [
        ...asides,
        ...diffValues(comparable(recordedResponse, exchange.method, fields), comparable(live, exchange.method, fields)),
      ]
      if (differences.length > 0) divergences.push({ ...base, kind: 'response', differences })
    }
  } finally {
    await transport.close().catch(() => {})
  }
  return { requests, matched: requests - divergences.length, divergences, redactedInputs, unanswered }
}

/** The human report: one line per divergence plus its differences. */
export function formatAgainstReport(report: AgainstReport, target: string): string {
  const lines = [`replay against ${target}: ${report.requests} requests, ${report.matched} matched, ${report.divergences.length} diverged`]
  for (const d of report.divergences) {
    const what = d.kind === 'response' ? '' : d.kind === 'no-response' ? ' (no response)' : ' (server closed the connection)'
    lines.push(`✗ #${d.seq} ${d.method} ${JSON.stringify(d.params)}${what}`)
    for (const line of formatDifferences(d.differences)) lines.push(`    ${line}`)
  }
  if (report.unanswered.length > 0)
    lines.push(
      `note: requests ${report.unanswered.map((s) => `#${s}`).join(', ')} were still open when the recording ended (sent, not compared)`,
    )
  if (report.redactedInputs.length > 0)
    lines.push(`note: requests ${report.redactedInputs.map((s) => `#${s}`).join(', ')} were sent with redacted ("${REDACTED}") values`)
  return `${lines.join('\n')}\n`
}

const CARRIED_FIELDS = ['requestState', 'taskId'] as const

function learnCarried(recorded: Record<string, unknown> | undefined, live: JsonRpcResponse, carried: Map<string, unknown>): void {
  const before = recorded?.result as Record<string, unknown> | undefined
  const now = 'result' in live ? (live.result as Record<string, unknown>) : undefined
  if (before === undefined || now === undefined) return
  const task = (r: Record<string, unknown>) =>
    typeof r.task === 'object' && r.task !== null ? (r.task as Record<string, unknown>).taskId : undefined
  for (const field of CARRIED_FIELDS) {
    const old = field === 'taskId' ? (before.taskId ?? task(before)) : before[field]
    const fresh = field === 'taskId' ? (now.taskId ?? task(now)) : now[field]
    if (old !== undefined && fresh !== undefined) carried.set(JSON.stringify(old), fresh)
  }
}

function substitute(request: JsonRpcRequest, carried: Map<string, unknown>): JsonRpcRequest {
  const params = request.params
  if (params === undefined || carried.size === 0) return request
  let changed: Record<string, unknown> | undefined
  for (const field of CARRIED_FIELDS) {
    const key = JSON.stringify(params[field])
    if (params[field] !== undefined && carried.has(key)) changed = { ...(changed ?? params), [field]: carried.get(key) }
  }
  return changed === undefined ? request : { ...request, params: changed }
}

function comparable(message: unknown, method: string, fields: ReturnType<typeof volatileFields>): unknown {
  if (message === undefined) return undefined
  const { jsonrpc: _j, id: _i, ...rest } = message as Record<string, unknown>
  return normalize(rest, method, fields)
}

// A live server→client request: answer as the recorded client did (same method, in order), else
// -32601. Its params are compared with the recorded request's; paths read `<method>/params/...`.
function replyTo(
  request: JsonRpcRequest,
  exchange: Exchange | undefined,
  used: Set<object>,
  fields: readonly VolatileField[],
): { message: JsonRpcMessage; differences: Difference[] } {
  // A keep-alive ping is not part of what was recorded (2025-11-25 basic/utilities/ping.mdx).
  if (request.method === 'ping') return { message: makeResult(request.id, {}), differences: [] }
  const recorded = exchange?.answer.find((a) => a.message.method === request.method && 'id' in a.message && !used.has(a))
  if (recorded !== undefined) used.add(recorded)
  const differences =
    recorded === undefined
      ? [{ path: `<${request.method}>`, observed: request.params ?? {}, kind: 'added' as const }]
      : diffValues(
          normalize({ params: recorded.message.params ?? {} }, request.method, fields),
          normalize({ params: request.params ?? {} }, request.method, fields),
        ).map((d) => ({ ...d, path: `<${request.method}>${d.path}` }))
  const reply = recorded === undefined ? undefined : exchange?.clientReplies.get(JSON.stringify(recorded.message.id))
  if (reply === undefined)
    return {
      message: makeError(
        request.id,
        methodNotFound(request.method, undefined, { message: `the recording has no client answer to ${request.method}` }).toRpc(),
      ),
      differences,
    }
  return { message: { ...(reply.message as Record<string, unknown>), id: request.id } as unknown as JsonRpcMessage, differences }
}
