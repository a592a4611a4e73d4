/**
 * The config file as a document: its text, and that text parsed to the top-level object, with the
 * errors a user reads (the file's name, and the line and column of bad JSON). Both the whole-file
 * load (load.ts) and the settings section read alone (settings-section.ts) start here, so a warm
 * `mcpx call` reports a broken file in the same words as every other command.
 */
import { readFileSync } from 'node:fs'
import { McpxError } from '../errors/index.ts'
import { configError } from './interpolate.ts'
import { locateJsonError } from './json-position.ts'
import { hasJsoncComments } from './jsonc.ts'

/** The file's text; a missing or unreadable file is a CONFIG error naming it. */
export function readConfigText(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message
    throw new McpxError('CONFIG', `config ${file}: ${reason}`, { file }, { cause: error })
  }
}

/** The text parsed as JSON, which must be an object at the top level. */
export function parseConfigDocument(text: string, file: string): Record<string, unknown> {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    const at = locateJsonError(text)
    // VS Code's and opencode's files allow comments; this one stays plain JSON, as `mcpx import` rewrites it.
    const hint = hasJsoncComments(text) ? ' (comments are not JSON, and this file is plain JSON)' : ''
    if (at !== undefined)
      throw new McpxError(
        'CONFIG',
        `config ${file}:${at.line}:${at.column}: not valid JSON: ${at.message}${hint}`,
        { file, line: at.line, column: at.column },
        { cause: error },
      )
    throw new McpxError('CONFIG', `config ${file}: not valid JSON: ${(error as Error).message}${hint}`, { file }, { cause: error })
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw configError({ file, path: [] }, 'expected an object at the top level')
  return raw as Record<string, unknown>
}
