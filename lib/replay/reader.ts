/**
 * Read and validate a recording. Every failure is an McpxError USAGE naming the file and line:
 * empty file, not a recording, a format version newer than this mcpx reads (a file "from the
 * future"), a malformed line, or a truncated last line (a recorder killed mid-write).
 */
import { readFileSync } from 'node:fs'
import * as v from 'valibot'
import { McpxError } from '../errors/index.ts'
import { describeIssues } from '../wire/index.ts'
import {
  EntrySchema,
  FORMAT_NAME,
  FORMAT_VERSION,
  RecordingHeaderSchema,
  type Entry,
  type MessageEntry,
  type Peer,
  type Recording,
} from './format.ts'

/** Read and parse a recording file. */
export function readRecording(path: string): Recording {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new McpxError('USAGE', `cannot read recording ${path}: ${(error as Error).message}`, { file: path }, { cause: error })
  }
  return parseRecording(text, path)
}

/** Parse recording text; `source` names it in errors. */
export function parseRecording(text: string, source = 'recording'): Recording {
  const fail = (line: number, message: string): never => {
    throw new McpxError('USAGE', `${source}:${line}: ${message}`, { file: source, line })
  }
  const lines = text.split('\n')
  const endsWithNewline = text.endsWith('\n')
  if (endsWithNewline) lines.pop()
  if (lines.length === 0 || (lines.length === 1 && lines[0]!.trim() === '')) fail(1, 'empty file: not an mcpx recording')

  const rawHeader = parseLine(lines[0]!, 1, lines.length === 1 && !endsWithNewline, fail)
  if (typeof rawHeader !== 'object' || rawHeader === null || (rawHeader as { format?: unknown }).format !== FORMAT_NAME) {
    fail(1, `not an mcpx recording (the first line must be a header with "format":"${FORMAT_NAME}")`)
  }
  const version = (rawHeader as { formatVersion?: unknown }).formatVersion
  if (typeof version === 'number' && Number.isInteger(version) && version > FORMAT_VERSION) {
    fail(1, `recording format version ${version} is newer than this mcpx reads (1..${FORMAT_VERSION}); upgrade mcpx to read it`)
  }
  const header = v.safeParse(RecordingHeaderSchema, rawHeader)
  if (!header.success) fail(1, `bad recording header: ${describeIssues(header.issues)}`)
  const headerValue = (header as v.SafeParseResult<typeof RecordingHeaderSchema> & { success: true }).output

  const entries: Entry[] = []
  let era = headerValue.era
  let revision = headerValue.revision
  let peer: Peer | undefined = headerValue.peer
  let lastSeq = 0
  for (let i = 1; i < lines.length; i++) {
    const lineNo = i + 1
    if (lines[i]!.trim() === '') continue
    const raw = parseLine(lines[i]!, lineNo, i === lines.length - 1 && !endsWithNewline, fail)
    const parsed = v.safeParse(EntrySchema, raw)
    if (!parsed.success) fail(lineNo, `bad entry: ${describeIssues(parsed.issues)}`)
    const entry = (parsed as { output: Entry }).output
    if (entry.type === 'message') {
      if (entry.seq <= lastSeq) fail(lineNo, `message seq ${entry.seq} does not follow ${lastSeq}`)
      lastSeq = entry.seq
    } else if (entry.type === 'negotiated') {
      era = entry.era
      revision = entry.revision
      peer = { ...peer, ...entry.peer }
    }
    entries.push(entry)
  }
  const messages = entries.filter((e): e is MessageEntry => e.type === 'message')
  return { header: headerValue, entries, messages, era, revision, ...(peer !== undefined && { peer }) }
}

function parseLine(line: string, lineNo: number, unterminated: boolean, fail: (line: number, message: string) => never): unknown {
  try {
    return JSON.parse(line)
  } catch (error) {
    if (unterminated) return fail(lineNo, 'truncated: the last line is incomplete (was the recorder killed mid-write?)')
    return fail(lineNo, `malformed line: ${(error as Error).message}`)
  }
}
