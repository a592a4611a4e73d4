/**
 * A 2025-03-26 JSON-RPC batch on a legacy session (2025-03-26 basic/transports.mdx "Sending
 * Messages to the Server"; removed in 2025-06-18, and classify.ts refuses it for later revisions):
 * answered as one JSON array, never a stream, so the batch's asks and notifications go to the
 * session's standalone stream. A message that does not parse gets its own error in the array.
 */
import type { RpcError } from '../../errors/index.ts'
import { HTTP_STATUS, parseMessage, recoverId } from '../../wire/index.ts'
import { jsonResponse } from './body.ts'
import type { HandlerContext, LegacySession } from './handler-context.ts'
import { sessionOutlet } from './session-lifecycle.ts'

export async function answerBatch(
  ctx: HandlerContext,
  messages: unknown[],
  session: LegacySession,
  headers: Record<string, string>,
): Promise<Response> {
  const answers = await Promise.all(
    messages.map(async (raw) => {
      try {
        return (
          await ctx.engine.answer(parseMessage(raw), { connection: session.connection, outlet: sessionOutlet(session), era: 'legacy' })
        ).message
      } catch (error) {
        return { jsonrpc: '2.0' as const, id: recoverId(raw), error: (error as RpcError).toRpc() }
      }
    }),
  )
  const responses = answers.filter((a) => a !== undefined)
  if (responses.length === 0) return new Response(null, { status: HTTP_STATUS.ACCEPTED, headers })
  return jsonResponse(responses, HTTP_STATUS.OK, headers)
}
