/**
 * Cursor pagination of the list methods (server/utilities/pagination.mdx): cursors are opaque to
 * the client, an invalid one is -32602, the last page has no nextCursor. A cursor encodes the
 * offset into the (deterministically ordered) list.
 */
import { RPC, RpcError } from '../errors/index.ts'
import type { JsonObject } from './server-definition.ts'

export function paginate(items: JsonObject[], key: string, params: JsonObject, pageSize: number): JsonObject {
  const start = params.cursor === undefined ? 0 : decodeCursor(params.cursor)
  if (start > items.length) throw invalidCursor()
  if (pageSize <= 0) return { [key]: start === 0 ? items : items.slice(start) }
  const end = start + pageSize
  const page: JsonObject = { [key]: items.slice(start, end) }
  if (end < items.length) page.nextCursor = Buffer.from(JSON.stringify({ o: end })).toString('base64url')
  return page
}

function decodeCursor(cursor: unknown): number {
  if (typeof cursor !== 'string') throw invalidCursor()
  try {
    const { o } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown }
    if (typeof o === 'number' && Number.isInteger(o) && o >= 0) return o
  } catch {
    // fall through: not one of ours
  }
  throw invalidCursor()
}

function invalidCursor(): RpcError {
  return new RpcError(RPC.INVALID_PARAMS, 'Invalid cursor', { reason: 'cursor' })
}
