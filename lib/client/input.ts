/**
 * Server→client questions, answered through ONE handler per kind whichever era asked: legacy
 * JSON-RPC requests (`elicitation/create`, `sampling/createMessage`, `roots/list`) and the entries
 * of a 2026 InputRequiredResult (mrtr.mdx: values are `{method, params}`, answers are bare
 * ElicitResult / CreateMessageResult / ListRootsResult keyed like the requests).
 */
import { McpxError } from '../errors/index.ts'
import type { Peer } from '../session/index.ts'
import { type Era, methodNotFound } from '../wire/index.ts'
import type { ClientHandlers, InputContext, JsonObject } from './connect-options.ts'

const METHODS = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const

function handlerFor(handlers: ClientHandlers, method: string) {
  if (method === 'elicitation/create') return handlers.onElicit
  if (method === 'sampling/createMessage') return handlers.onSample
  if (method === 'roots/list') return handlers.onListRoots
  return undefined
}

/** Answer one question; a method without a handler is the error a server should expect. */
async function answerInput(handlers: ClientHandlers, method: string, params: JsonObject, context: InputContext): Promise<JsonObject> {
  const handler = handlerFor(handlers, method)
  if (!handler) throw methodNotFound(method, undefined, { message: `mcpx client has no handler for ${method}` })
  return await handler(params, context)
}

/** Build `inputResponses` for one InputRequiredResult (undefined when it asked for nothing). */
export async function answerInputRequests(
  handlers: ClientHandlers,
  inputRequests: unknown,
  era: Era,
  signal?: AbortSignal,
): Promise<JsonObject | undefined> {
  if (inputRequests === undefined) return undefined
  if (typeof inputRequests !== 'object' || inputRequests === null || Array.isArray(inputRequests)) {
    throw new McpxError('PROTOCOL', 'input_required result has an inputRequests member that is not an object')
  }
  const entries = Object.entries(inputRequests as Record<string, unknown>)
  const answers = await Promise.all(
    entries.map(async ([key, request]) => {
      const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown }
      if (typeof method !== 'string') throw new McpxError('PROTOCOL', `inputRequests.${key} has no method`)
      if (!handlerFor(handlers, method)) {
        throw new McpxError('PROTOCOL', `server asked for ${method} (inputRequests.${key}), which this client did not declare`, {
          method,
          key,
        })
      }
      const answer = await answerInput(handlers, method, (params ?? {}) as JsonObject, { era, via: 'input_required', key, signal })
      return [key, answer] as const
    }),
  )
  return Object.fromEntries(answers)
}

/** Legacy: serve the server's requests on the peer through the same handlers, plus ping. */
export function serveServerRequests(peer: Peer, handlers: ClientHandlers, era: () => Era): void {
  for (const method of METHODS) {
    peer.handle(method, (params, context) =>
      answerInput(handlers, method, params, { era: era(), via: 'request', key: context.id, signal: context.signal }),
    )
  }
  peer.handle('ping', () => ({}))
}
