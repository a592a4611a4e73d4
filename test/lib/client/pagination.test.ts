/** lib/client/pagination.ts: walking a list's pages when the server's cursors misbehave. */
import { describe, expect, test } from 'bun:test'
import { collectPages, cursorOf } from '../../../lib/client/pagination.ts'

type Pages = Record<string, { items: Record<string, unknown>[]; nextCursor?: string }>

/** A server answering each cursor ('' for the first page) from `pages`, recording what it was asked. */
function server(pages: Pages) {
  const asked: (string | undefined)[] = []
  const page = async (cursor?: string) => {
    asked.push(cursor)
    return pages[cursor ?? '']!
  }
  return { asked, page }
}

describe('collectPages', () => {
  test('every page, in order, until one has no cursor', async () => {
    const { asked, page } = server({ '': { items: [{ name: 'a' }], nextCursor: 'p2' }, p2: { items: [{ name: 'b' }] } })
    expect(await collectPages(page, 10, () => {})).toEqual([{ name: 'a' }, { name: 'b' }])
    expect(asked).toEqual([undefined, 'p2'])
  })

  test('a cursor handed out again ends the list, and the repeated items are listed once', async () => {
    const warnings: string[] = []
    const { asked, page } = server({
      '': { items: [{ name: 'only' }], nextCursor: 'again' },
      again: { items: [{ name: 'only' }], nextCursor: 'again' },
    })
    expect(await collectPages(page, 100, (w) => warnings.push(w))).toEqual([{ name: 'only' }])
    expect(asked).toEqual([undefined, 'again'])
    expect(warnings).toEqual(['list stopped: the server handed out cursor "again" a second time'])
  })

  test('at most maxPages pages, then it says so', async () => {
    const warnings: string[] = []
    let n = 0
    const page = async () => ({ items: [{ n: n++ }], nextCursor: `c${n}` })
    expect((await collectPages(page, 3, (w) => warnings.push(w))).length).toBe(3)
    expect(warnings).toEqual(['list stopped after 3 pages (maxListPages)'])
  })
})

describe('cursorOf', () => {
  test('a non-empty string is a cursor; an empty one, null or anything else ends the list', () => {
    expect(cursorOf({ nextCursor: 'x' })).toBe('x')
    for (const nextCursor of ['', null, 5, undefined]) expect(cursorOf({ nextCursor })).toBeUndefined()
  })
})
