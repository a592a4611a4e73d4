/**
 * Edit one member of a JSON or JSONC document as text, keeping everything else as it was: the
 * user's comments, trailing commas, key order and layout. `mcpx install` and `uninstall` change one
 * entry in a host's config (VS Code's, Gemini's, opencode's files are JSONC, and often commented);
 * rewriting the whole file would drop the comments and reformat the rest.
 *
 * The caller checks the result by parsing it (checkedEdit) and falls back to a whole rewrite when
 * the edit did not come out as intended, so an unusual layout costs formatting, never data.
 */
import { hasJsoncComments, parseJsonc } from './jsonc.ts'

interface Member {
  readonly key: string
  /** Where the member's key starts and its value ends. */
  readonly start: number
  readonly valueEnd: number
  readonly value: Value
}

type Value =
  | { readonly kind: 'object'; readonly start: number; readonly end: number; readonly members: Member[] }
  | { readonly kind: 'other'; readonly start: number; readonly end: number }

/** `text` with the member at `path` set to `value` (created, with any missing objects on the way); undefined when it cannot be done as text. */
export function setMember(text: string, path: readonly string[], value: unknown): string | undefined {
  const root = parseDocument(text)
  if (root?.kind !== 'object' || path.length === 0) return undefined
  const unit = indentUnit(text)
  let object = root
  for (let depth = 0; depth < path.length; depth++) {
    const member = lastMember(object, path[depth]!)
    if (depth === path.length - 1 && member !== undefined) {
      const indent = lineIndent(text, member.start)
      return text.slice(0, member.value.start) + formatValue(value, indent, unit) + text.slice(member.value.end)
    }
    if (member === undefined || member.value.kind !== 'object') {
      // The rest of the path goes in as one new member: `{"a": {"b": value}}` for a missing `a`.
      const nested = path.slice(depth + 1).reduceRight((inner, key) => ({ [key]: inner }), value)
      if (member !== undefined) return undefined
      return insertMember(text, object, path[depth]!, nested, unit)
    }
    object = member.value
  }
  return undefined
}

/** `text` without the member at `path`; the text itself when there is none; undefined when it cannot be done as text. */
export function removeMember(text: string, path: readonly string[]): string | undefined {
  const root = parseDocument(text)
  if (root?.kind !== 'object' || path.length === 0) return undefined
  let object = root
  for (const key of path.slice(0, -1)) {
    const member = lastMember(object, key)
    if (member === undefined) return text
    if (member.value.kind !== 'object') return undefined
    object = member.value
  }
  const index = object.members.findLastIndex((member) => member.key === path.at(-1))
  if (index === -1) return text
  const member = object.members[index]!
  const next = object.members[index + 1]
  if (next !== undefined) return text.slice(0, lineStartIfAlone(text, member.start)) + text.slice(lineStartIfAlone(text, next.start))
  const trailingComma = commaAfter(text, member.valueEnd)
  const kept = text.slice(0, lineStartIfAlone(text, member.start)) + text.slice(lineEndIfAlone(text, trailingComma ?? member.valueEnd))
  const previous = object.members[index - 1]
  if (previous === undefined || trailingComma !== undefined) return kept
  // The last member had no comma after it: nor may the new last one (the cut is before `member`, so `kept` has it where `text` does).
  const comma = commaAfter(text, previous.valueEnd)!
  return kept.slice(0, comma - 1) + kept.slice(comma)
}

function insertMember(text: string, object: Extract<Value, { kind: 'object' }>, key: string, value: unknown, unit: string): string {
  const last = object.members.at(-1)
  if (last === undefined) {
    const indent = lineIndent(text, object.start) + unit
    const inner = text.slice(object.start + 1, object.end - 1)
    // What was inside (a comment, say) stays, after the new member.
    const rest = inner.trim() === '' ? `\n${lineIndent(text, object.start)}` : inner
    return `${text.slice(0, object.start + 1)}\n${indent}${JSON.stringify(key)}: ${formatValue(value, indent, unit)}${rest}${text.slice(object.end - 1)}`
  }
  // `{"a": 1}` on one line: the new member joins it there, on one line too.
  if (!text.slice(last.valueEnd, object.end).includes('\n'))
    return `${text.slice(0, last.valueEnd)}, ${JSON.stringify(key)}: ${JSON.stringify(value)}${text.slice(last.valueEnd)}`
  const indent = lineIndent(text, last.start)
  const member = `${JSON.stringify(key)}: ${formatValue(value, indent, unit)}`
  const comma = commaAfter(text, last.valueEnd)
  // After the rest of the last member's line (a comment there stays with it), in the file's comma style.
  const lineEnd = text.indexOf('\n', comma ?? last.valueEnd)
  const head = comma === undefined ? `${text.slice(0, last.valueEnd)},${text.slice(last.valueEnd, lineEnd)}` : text.slice(0, lineEnd)
  return `${head}\n${indent}${member}${comma === undefined ? '' : ','}${text.slice(lineEnd)}`
}

function lastMember(object: Extract<Value, { kind: 'object' }>, key: string): Member | undefined {
  // JSON.parse keeps the last of repeated keys; so does the edit.
  return object.members.findLast((member) => member.key === key)
}

/** JSON.stringify at `unit` per level, its lines after the first at `indent`. */
function formatValue(value: unknown, indent: string, unit: string): string {
  return JSON.stringify(value, null, unit).replace(/\n/g, `\n${indent}`)
}

/** The whitespace that starts the line `at` is on. */
function lineIndent(text: string, at: number): string {
  const start = text.lastIndexOf('\n', at - 1) + 1
  return /^[ \t]*/.exec(text.slice(start, at))![0]
}

/** The start of `at`'s line when only whitespace precedes it there, else `at`. */
function lineStartIfAlone(text: string, at: number): number {
  const start = text.lastIndexOf('\n', at - 1) + 1
  return /^[ \t]*$/.test(text.slice(start, at)) ? start : at
}

/** Just past the end of `at`'s line when only whitespace follows it there, else `at`. */
function lineEndIfAlone(text: string, at: number): number {
  const end = text.indexOf('\n', at)
  return end !== -1 && /^[ \t]*$/.test(text.slice(at, end)) ? end + 1 : at
}

/** The file's indentation step: the first indented line's whitespace, else two spaces. */
function indentUnit(text: string): string {
  return /\n([ \t]+)\S/.exec(text)?.[1] ?? '  '
}

/** The position just past a comma that follows `at` (across whitespace and comments), if one does. */
function commaAfter(text: string, at: number): number | undefined {
  const next = skipBlank(text, at)
  return text[next] === ',' ? next + 1 : undefined
}

/** Past whitespace and comments from `at`. */
function skipBlank(text: string, at: number): number {
  let i = at
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++
    if (text.startsWith('//', i)) i = text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i)
    else if (text.startsWith('/*', i)) i = text.indexOf('*/', i + 2) === -1 ? text.length : text.indexOf('*/', i + 2) + 2
    else return i
  }
}

/** The document's top value with positions, or undefined when it is not JSONC. */
function parseDocument(text: string): Value | undefined {
  try {
    const { value, end } = parseValue(text, skipBlank(text, 0))
    return skipBlank(text, end) === text.length ? value : undefined
  } catch {
    return undefined
  }
}

function parseValue(text: string, at: number): { value: Value; end: number } {
  if (text[at] === '{') return parseObject(text, at)
  if (text[at] === '[') {
    let i = skipBlank(text, at + 1)
    while (text[i] !== ']') {
      i = skipBlank(text, parseValue(text, i).end)
      if (text[i] === ',') i = skipBlank(text, i + 1)
      else if (text[i] !== ']') throw new SyntaxError(`expected , or ] at ${i}`)
    }
    return { value: { kind: 'other', start: at, end: i + 1 }, end: i + 1 }
  }
  if (text[at] === '"') {
    const end = stringEnd(text, at)
    return { value: { kind: 'other', start: at, end }, end }
  }
  const literal = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(at, at + 64))
  if (!literal) throw new SyntaxError(`unexpected ${text[at]} at ${at}`)
  const end = at + literal[0].length
  return { value: { kind: 'other', start: at, end }, end }
}

function parseObject(text: string, at: number): { value: Value; end: number } {
  const members: Member[] = []
  let i = skipBlank(text, at + 1)
  while (text[i] !== '}') {
    if (text[i] !== '"') throw new SyntaxError(`expected a key at ${i}`)
    const keyEnd = stringEnd(text, i)
    const key = JSON.parse(text.slice(i, keyEnd)) as string
    const colon = skipBlank(text, keyEnd)
    if (text[colon] !== ':') throw new SyntaxError(`expected : at ${colon}`)
    const { value, end } = parseValue(text, skipBlank(text, colon + 1))
    members.push({ key, start: i, valueEnd: end, value })
    i = skipBlank(text, end)
    if (text[i] === ',') i = skipBlank(text, i + 1)
    else if (text[i] !== '}') throw new SyntaxError(`expected , or } at ${i}`)
  }
  return { value: { kind: 'object', start: at, end: i + 1, members }, end: i + 1 }
}

function stringEnd(text: string, at: number): number {
  let i = at + 1
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
  if (i >= text.length) throw new SyntaxError(`unterminated string at ${at}`)
  return i + 1
}

/**
 * The text as edited when it reads back as `expected` (the document with the change made); else
 * `expected` written whole, saying whether that dropped comments the file had.
 */
export function checkedEdit(text: string, edited: string | undefined, expected: Record<string, unknown>, file: string) {
  if (edited !== undefined && sameJson(parseJsonc(edited, file), expected)) return { text: edited, droppedComments: false }
  return { text: `${JSON.stringify(expected, null, 2)}\n`, droppedComments: hasJsoncComments(text) }
}

/** Equal as JSON values, whatever the key order. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b))
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, sortKeys(v)]),
    )
  return value
}
