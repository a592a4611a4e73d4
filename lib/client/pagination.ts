/**
 * Cursor pagination of the list methods, `tools/list` and its kin (server/utilities/pagination.mdx,
 * every revision): one page's shape and the walk over all pages, bounded by maxListPages so a
 * server that never stops handing out cursors cannot keep a client listing forever.
 */
import type { JsonObject } from './connect-options.ts'

export interface Page<T> {
  items: T[]
  nextCursor?: string
}

/**
 * The result's `nextCursor`, when it is one. Anything else ends the list, and so does an empty
 * string: servers whose encoders write "no cursor" as "" would otherwise be listed again from the
 * start, page after page.
 */
export function cursorOf(result: JsonObject): string | undefined {
  return typeof result.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : undefined
}

/**
 * Every item of every page `page` fetches, at most `maxPages` pages (then `warn` says the list was
 * cut). A cursor handed out a second time ends the list too (the server would hand out the same
 * pages again), and an item identical to one already listed is not listed twice.
 */
export async function collectPages(
  page: (cursor?: string) => Promise<Page<JsonObject>>,
  maxPages: number,
  warn: (message: string) => void,
): Promise<JsonObject[]> {
  const items: JsonObject[] = []
  const listed = new Set<string>()
  const cursors = new Set<string>()
  let cursor: string | undefined
  for (let pages = 0; pages < maxPages; pages++) {
    const result = await page(cursor)
    for (const item of result.items) {
      const key = JSON.stringify(item)
      if (listed.has(key)) continue
      listed.add(key)
      items.push(item)
    }
    // Cursors are opaque; only an absent one ends the list (server/utilities/pagination.mdx, every revision).
    if (result.nextCursor === undefined) return items
    if (cursors.has(result.nextCursor)) {
      warn(`list stopped: the server handed out cursor ${JSON.stringify(result.nextCursor)} a second time`)
      return items
    }
    cursors.add(result.nextCursor)
    cursor = result.nextCursor
  }
  warn(`list stopped after ${maxPages} pages (maxListPages)`)
  return items
}
