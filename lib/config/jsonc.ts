/**
 * JSON with comments and trailing commas, as VS Code and opencode write their configs. Comments
 * and trailing commas outside strings are dropped, then JSON.parse reads the rest.
 *
 * Why this stays next to Bun.JSONC.parse (Bun 1.4.5 parses the same dialect): `mcpx install` must
 * know whether a host's file holds comments before it rewrites the file as plain JSON (they would
 * be lost; hasJsoncComments), which a parser that returns only the value cannot say; and Bun's
 * error position is not the line and column of the fault (measured: line 1, column 85 for a
 * missing value on line 4 of a 30-byte text), so it would not improve the error either.
 */
import { McpxError } from '../errors/index.ts'

export function parseJsonc(text: string, file: string): unknown {
  try {
    return JSON.parse(stripJsonc(text).json)
  } catch (error) {
    throw new McpxError('CONFIG', `${file}: not valid JSON: ${(error as Error).message}`, { file }, { cause: error })
  }
}

/** True when the text holds comments, which rewriting the file as plain JSON would drop. */
export function hasJsoncComments(text: string): boolean {
  return stripJsonc(text).comments
}

export function stripJsonc(text: string): { json: string; comments: boolean } {
  let out = ''
  let comments = false
  let i = 0
  const skipComment = (at: number): number => {
    if (text[at] === '/' && text[at + 1] === '/') {
      const end = text.indexOf('\n', at)
      return end === -1 ? text.length : end
    }
    if (text[at] === '/' && text[at + 1] === '*') {
      const end = text.indexOf('*/', at + 2)
      return end === -1 ? text.length : end + 2
    }
    return at
  }
  while (i < text.length) {
    const c = text[i]!
    if (c === '"') {
      const start = i++
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
      out += text.slice(start, ++i)
      continue
    }
    const after = skipComment(i)
    if (after !== i) {
      comments = true
      i = after
      continue
    }
    if (c === ',') {
      let j = i + 1
      for (;;) {
        while (/\s/.test(text[j] ?? '')) j++
        const next = skipComment(j)
        if (next === j) break
        j = next
      }
      if (text[j] === ']' || text[j] === '}') {
        i++
        continue
      }
    }
    out += c
    i++
  }
  return { json: out, comments }
}
