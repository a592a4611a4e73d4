/**
 * 2025-11-25 basic/transports.mdx: a session that ended answers 404. The replica tests send the ended session's id
 * through the balancer several times, so that every replica (the restarted owner included) is asked.
 */
import { expect } from 'bun:test'

export async function expectEndedOnEveryReplica(
  url: string | URL,
  auth: Record<string, string>,
  session: string,
  requests: number,
): Promise<void> {
  for (let i = 0; i < requests; i++) {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }),
    })
    expect(response.status).toBe(404)
    await response.body?.cancel()
  }
}
