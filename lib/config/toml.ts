/**
 * TOML host configs (Codex `config.toml`), read by Bun's TOML 1.0 parser (`Bun.TOML.parse`; its
 * date-time values come back as their ISO text, so a config is plain JSON data). Bun's errors carry no position, and a config error here must name the
 * file and the line: the line is found by parsing ever longer prefixes of the text until one fails
 * with the same message (only a broken file pays for it; an unclosed array or string is reported at
 * the line that opens it).
 */
import { McpxError } from '../errors/index.ts'

type TomlTable = Record<string, unknown>

const PREFIX = 'TOML Parse error: '

export function parseToml(text: string, file = 'TOML'): TomlTable {
  try {
    return plain(Bun.TOML.parse(text)) as TomlTable
  } catch (error) {
    const message = messageOf(error)
    throw new McpxError('CONFIG', `${file}:${lineOf(text, message)}: ${message}`, { file })
  }
}

/** Tables and arrays as they are; any other object (Bun's date-time values) as its text. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain)
  if (value === null || typeof value !== 'object') return value
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return String(value)
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]))
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.startsWith(PREFIX) ? message.slice(PREFIX.length) : message
}

function lineOf(text: string, message: string): number {
  const lines = text.split('\n')
  for (let end = 1; end <= lines.length; end++) {
    try {
      Bun.TOML.parse(lines.slice(0, end).join('\n'))
    } catch (error) {
      if (messageOf(error) === message) return end
    }
  }
  return lines.length
}
