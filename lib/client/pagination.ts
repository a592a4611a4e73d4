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

/** The result's `nextCursor`, when it is one (anything else ends the list). */
export function cursorOf(result: JsonObject): string | undefined {
  return typeof result.nextCursor === 'string' ? result.nextCursor : undefined
}

/** Every item of every page `page` fetches, at most `maxPages` pages (then `warn` says the list was cut). */
export async function collectPages(
  page: (cursor?: string) => Promise<Page<JsonObject>>,
  maxPages: number,
  warn: (message: string) => void,
): Promise<JsonObject[]> {
  const items: JsonObject[] = []
  let cursor: string | undefined
  for (let pages = 0; pages < maxPages; pages++) {
    const result = await page(cursor)
    items.push(...result.items)
    // Cursors are opaque; only an absent one ends the list (server/utilities/pagination.mdx, every revision).
    if (result.nextCursor === undefined) return items
    cursor = result.nextCursor
  }
  warn(`list stopped after ${maxPages} pages (maxListPages)`)
  return items
}
