/**
 * Where JSON text first goes wrong, as line and column (1-based): JSON.parse in Bun names the
 * problem but not the place, and a config error without a position sends the user hunting.
 * A small RFC 8259 scanner that only locates; JSON.parse still does the parsing.
 */
export interface JsonProblem {
  readonly line: number
  readonly column: number
  readonly message: string
}

export function locateJsonError(text: string): JsonProblem | undefined {
  let i = 0
  const fail = (message: string): never => {
    throw Object.assign(new Error(message), { offset: i })
  }
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++
  }
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length
    else fail(`unexpected ${describe(text[i])}`)
  }
  const string = () => {
    i++
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++
      else if (text.charCodeAt(i) < 0x20) fail('control character in a string')
      i++
    }
    if (i >= text.length) fail('unterminated string')
    i++
  }
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i))
    if (!match) fail(`unexpected ${describe(text[i])}`)
    i += match![0].length
  }
  const value = (): void => {
    space()
    const c = text[i]
    if (c === '{') {
      i++
      space()
      if (text[i] === '}') return void i++
      for (;;) {
        space()
        if (text[i] !== '"') fail(`expected a property name in double quotes, found ${describe(text[i])}`)
        string()
        space()
        if (text[i] !== ':') fail(`expected ":" after the property name, found ${describe(text[i])}`)
        i++
        value()
        space()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === '}') return void i++
        fail(`expected "," or "}", found ${describe(text[i])}`)
      }
    }
    if (c === '[') {
      i++
      space()
      if (text[i] === ']') return void i++
      for (;;) {
        value()
        space()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === ']') return void i++
        fail(`expected "," or "]", found ${describe(text[i])}`)
      }
    }
    if (c === '"') return string()
    if (c === 't') return literal('true')
    if (c === 'f') return literal('false')
    if (c === 'n') return literal('null')
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number()
    fail(`unexpected ${describe(c)}`)
  }
  try {
    value()
    space()
    if (i < text.length) fail(`unexpected ${describe(text[i])} after the end of the document`)
    return undefined
  } catch (error) {
    const offset = (error as { offset?: number }).offset ?? i
    const before = text.slice(0, offset)
    const line = before.split('\n').length
    return { line, column: offset - before.lastIndexOf('\n'), message: (error as Error).message }
  }
}

function describe(c: string | undefined): string {
  return c === undefined ? 'end of input' : JSON.stringify(c)
}
