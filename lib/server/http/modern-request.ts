/**
 * A 2026-07-28 request on the endpoint: stateless, so no session, and a throwaway connection per
 * request (2026-07-28 basic/index.mdx "Statelessness"). Before the engine sees it: the routing
 * headers must agree with the body (modern-headers.ts), Accept must fit, a request continuing
 * another replica's work (requestState, taskId) goes to its owner, and a server/discover is told
 * to the embedder as the closest thing to a session start.
 */
import { isRequest, META, recoverId, restoreRawIds, type JsonRpcMessage } from '../../wire/index.ts'
import { answerOrStream } from './answer-or-stream.ts'
import { checkAccept, rpcErrorResponse } from './body.ts'
import type { HttpVerdict } from './classify.ts'
import type { HandlerContext } from './handler-context.ts'
import { validateModernHeaders } from './modern-headers.ts'

export async function serveModern(
  ctx: HandlerContext,
  request: Request,
  verdict: Extract<HttpVerdict, { kind: 'modern' }>,
): Promise<Response> {
  const { engine, options } = ctx
  const message = verdict.message
  const params = message.params as Record<string, unknown> | undefined
  const toolName = message.method === 'tools/call' && typeof params?.name === 'string' ? params.name : undefined
  const checked = validateModernHeaders(request.headers, message, {
    toolInputSchema: toolName === undefined ? undefined : engine.registry.tool(toolName)?.inputSchema,
  })
  if (!checked.ok) return rpcErrorResponse(checked.status, checked.error, recoverId(message))
  const notAcceptable = checkAccept(request, verdict.revision, ctx.acceptMemo)
  if (notAcceptable) return notAcceptable
  if (options.forwardModern && params && (params.requestState !== undefined || params.taskId !== undefined)) {
    const answer = await options.forwardModern(request, restoreRawIds(JSON.stringify(message)), params, String(message.method))
    if (answer) return answer
  }
  if (message.method === 'server/discover' && options.onSession) {
    const info = (params?._meta as Record<string, unknown> | undefined)?.[META.CLIENT_INFO] as
      | { name?: unknown; version?: unknown }
      | undefined
    options.onSession({
      state: 'discovered',
      id: '-',
      revision: verdict.revision,
      request,
      ...(info && { client: { name: String(info.name), version: String(info.version) } }),
    })
  }
  // Stateless: a throwaway connection per request (2026-07-28 basic/index.mdx "Statelessness").
  const connection = engine.connect('http', false)
  try {
    return await answerOrStream(ctx, request, message, connection, { era: 'modern', headers: {} })
  } finally {
    if (!isRequest(message as unknown as JsonRpcMessage)) connection.close()
  }
}
