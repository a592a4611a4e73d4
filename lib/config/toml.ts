/**
 * A small TOML 1.0 reader for the subset host configs use (Codex `config.toml`): tables, arrays
 * of tables, dotted and quoted keys, basic/literal/multi-line strings, integers, floats,
 * booleans, arrays and inline tables. Dates are kept as their text. Errors name file and line.
 */
import { McpxError } from '../errors/index.ts'

type TomlTable = Record<string, unknown>

export function parseToml(text: string, file = 'TOML'): TomlTable {
  return new TomlReader(text, file).document()
}

const BARE_KEY = /[A-Za-z0-9_-]/
const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' }

class TomlReader {
  #pos = 0
  #root: TomlTable = {}
  #defined = new Set<TomlTable>()

  constructor(readonly text: string, readonly file: string) {}

  document(): TomlTable {
    let table = this.#root
    for (;;) {
      this.#skipBlank(true)
      if (this.#pos >= this.text.length) return this.#root
      if (this.text.startsWith('[[', this.#pos)) {
        this.#pos += 2
        const path = this.#key()
        this.#expect(']]')
        table = this.#arrayTable(path)
      } else if (this.text[this.#pos] === '[') {
        this.#pos += 1
        const path = this.#key()
        this.#expect(']')
        table = this.#table(this.#root, path, true)
      } else {
        this.#keyValue(table)
      }
      this.#endOfLine()
    }
  }

  #keyValue(table: TomlTable): void {
    const path = this.#key()
    this.#skipBlank(false)
    this.#expect('=')
    this.#skipBlank(false)
    const value = this.#value()
    const parent = this.#table(table, path.slice(0, -1), false)
    const last = path.at(-1)!
    if (last in parent) throw this.#error(`duplicate key "${path.join('.')}"`)
    parent[last] = value
  }

  #key(): string[] {
    const parts: string[] = []
    for (;;) {
      this.#skipBlank(false)
      const c = this.text[this.#pos]
      if (c === '"') parts.push(this.#basicString())
      else if (c === "'") parts.push(this.#literalString())
      else {
        const start = this.#pos
        while (this.#pos < this.text.length && BARE_KEY.test(this.text[this.#pos]!)) this.#pos++
        if (start === this.#pos) throw this.#error('expected a key')
        parts.push(this.text.slice(start, this.#pos))
      }
      this.#skipBlank(false)
      if (this.text[this.#pos] !== '.') return parts
      this.#pos++
    }
  }

  /** Walk (creating) nested tables; a [header] may not define the same table twice. */
  #table(from: TomlTable, path: string[], header: boolean): TomlTable {
    let table = from
    for (const part of path) {
      let next = table[part]
      if (next === undefined) {
        next = {}
        table[part] = next
      } else if (Array.isArray(next)) {
        next = next.at(-1)
      }
      if (next === null || typeof next !== 'object' || Array.isArray(next)) throw this.#error(`key "${part}" is not a table`)
      table = next as TomlTable
    }
    if (header) {
      if (this.#defined.has(table)) throw this.#error(`table [${path.join('.')}] defined twice`)
      this.#defined.add(table)
    }
    return table
  }

  #arrayTable(path: string[]): TomlTable {
    const parent = this.#table(this.#root, path.slice(0, -1), false)
    const last = path.at(-1)!
    const list = (parent[last] ??= []) as unknown
    if (!Array.isArray(list)) throw this.#error(`key "${path.join('.')}" is not an array of tables`)
    const table: TomlTable = {}
    list.push(table)
    return table
  }

  #value(): unknown {
    const rest = this.text.slice(this.#pos)
    const c = rest[0]
    if (c === '"') return rest.startsWith('"""') ? this.#multiline('"""') : this.#basicString()
    if (c === "'") return rest.startsWith("'''") ? this.#multiline("'''") : this.#literalString()
    if (c === '[') return this.#array()
    if (c === '{') return this.#inlineTable()
    if (rest.startsWith('true') && !BARE_KEY.test(rest[4] ?? '')) return this.#advance(4, true)
    if (rest.startsWith('false') && !BARE_KEY.test(rest[5] ?? '')) return this.#advance(5, false)
    const scalar = /^[^\s,\]}#]+(?: \d{2}:\d{2}[^\s,\]}#]*)?/.exec(rest)?.[0]
    if (scalar === undefined) throw this.#error('expected a value')
    this.#pos += scalar.length
    return this.#number(scalar)
  }

  #number(token: string): unknown {
    if (/^\d{4}-\d{2}-\d{2}|^\d{2}:\d{2}/.test(token)) return token
    const clean = token.replace(/_/g, '')
    if (/^[+-]?(inf|nan)$/.test(clean)) return clean.endsWith('nan') ? Number.NaN : clean.startsWith('-') ? -Infinity : Infinity
    if (/^0x[0-9a-f]+$/i.test(clean) || /^0o[0-7]+$/.test(clean) || /^0b[01]+$/.test(clean)) return Number(clean)
    if (/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(clean)) return Number(clean)
    throw this.#error(`invalid value ${JSON.stringify(token)}`)
  }

  #array(): unknown[] {
    this.#pos++
    const items: unknown[] = []
    for (;;) {
      this.#skipBlank(true)
      if (this.text[this.#pos] === ']') return this.#advance(1, items)
      items.push(this.#value())
      this.#skipBlank(true)
      if (this.text[this.#pos] === ',') this.#pos++
      else if (this.text[this.#pos] !== ']') throw this.#error('expected "," or "]" in array')
    }
  }

  #inlineTable(): TomlTable {
    this.#pos++
    const table: TomlTable = {}
    this.#skipBlank(false)
    if (this.text[this.#pos] === '}') return this.#advance(1, table)
    for (;;) {
      this.#keyValue(table)
      this.#skipBlank(false)
      if (this.text[this.#pos] === '}') return this.#advance(1, table)
      this.#expect(',')
    }
  }

  #basicString(): string {
    this.#pos++
    let out = ''
    for (;;) {
      const c = this.text[this.#pos++]
      if (c === undefined || c === '\n') throw this.#error('unterminated string')
      if (c === '"') return out
      out += c === '\\' ? this.#escape() : c
    }
  }

  #escape(): string {
    const c = this.text[this.#pos++]!
    if (c in ESCAPES) return ESCAPES[c]!
    const width = c === 'u' ? 4 : c === 'U' ? 8 : 0
    if (width === 0) throw this.#error(`invalid escape \\${c}`)
    const hex = this.text.slice(this.#pos, this.#pos + width)
    if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) throw this.#error('invalid unicode escape')
    this.#pos += width
    return String.fromCodePoint(Number.parseInt(hex, 16))
  }

  #literalString(): string {
    const end = this.text.indexOf("'", this.#pos + 1)
    const value = end === -1 ? '' : this.text.slice(this.#pos + 1, end)
    if (end === -1 || value.includes('\n')) throw this.#error('unterminated string')
    this.#pos = end + 1
    return value
  }

  #multiline(quote: '"""' | "'''"): string {
    this.#pos += 3
    if (this.text[this.#pos] === '\n') this.#pos++
    else if (this.text.startsWith('\r\n', this.#pos)) this.#pos += 2
    let out = ''
    for (;;) {
      if (this.#pos >= this.text.length) throw this.#error('unterminated multi-line string')
      if (this.text.startsWith(quote, this.#pos)) {
        // Up to two quotes may sit right before the closing delimiter.
        let extra = 0
        while (extra < 2 && this.text[this.#pos + 3 + extra] === quote[0]) extra++
        out += quote[0]!.repeat(extra)
        this.#pos += 3 + extra
        return out
      }
      const c = this.text[this.#pos++]!
      if (quote === '"""' && c === '\\') {
        if (/^[ \t]*\r?\n/.test(this.text.slice(this.#pos))) {
          while (/\s/.test(this.text[this.#pos] ?? '')) this.#pos++
        } else {
          out += this.#escape()
        }
      } else {
        out += c
      }
    }
  }

  #skipBlank(newlines: boolean): void {
    for (;;) {
      const c = this.text[this.#pos]
      if (c === ' ' || c === '\t' || (newlines && (c === '\n' || c === '\r'))) this.#pos++
      else if (newlines && c === '#') this.#skipComment()
      else return
    }
  }

  #skipComment(): void {
    while (this.#pos < this.text.length && this.text[this.#pos] !== '\n') this.#pos++
  }

  #endOfLine(): void {
    this.#skipBlank(false)
    if (this.text[this.#pos] === '#') this.#skipComment()
    if (this.text[this.#pos] === '\r') this.#pos++
    if (this.#pos < this.text.length && this.text[this.#pos] !== '\n') throw this.#error('expected the end of the line')
  }

  #expect(token: string): void {
    if (!this.text.startsWith(token, this.#pos)) throw this.#error(`expected "${token}"`)
    this.#pos += token.length
  }

  #advance<T>(count: number, value: T): T {
    this.#pos += count
    return value
  }

  #error(problem: string): McpxError {
    const line = this.text.slice(0, this.#pos).split('\n').length
    return new McpxError('CONFIG', `${this.file}:${line}: ${problem}`, { file: this.file, line })
  }
}
