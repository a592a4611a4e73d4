/**
 * `mcpx install <host>`: put the one mcpx entry (`mcpx serve` over stdio) into a host's user
 * config, backing the file up first. A JSON or JSONC file is edited as text where the entry goes
 * (jsonc-edit.ts: the user's comments and layout stay) and read back to check; when that does not
 * read back as intended the file is rewritten whole (comments then reported as dropped; the
 * backup keeps them). Codex TOML is edited as text and re-read to check.
 */
import { existsSync, readFileSync } from 'node:fs'
import { McpxError } from '../errors/index.ts'
import { type HostEnv, type HostId, HOSTS, MCPX_ENTRY_NAME } from './hosts.ts'
import { parseJsonc } from './jsonc.ts'
import { checkedEdit, removeMember, sameJson, setMember } from './jsonc-edit.ts'
import { parseToml } from './toml.ts'
import { writeWithBackup } from './write.ts'

export interface InstallResult {
  readonly host: HostId
  readonly file: string
  readonly action: 'created' | 'added' | 'updated' | 'unchanged'
  readonly entry: unknown
  readonly backup: string | null
  /** The old file had comments, which the rewrite did not keep (the backup does). */
  readonly droppedComments: boolean
}

export function installHost(host: HostId, env: HostEnv, options: { dryRun?: boolean } = {}): InstallResult {
  const target = HOSTS[host].install(env)
  const exists = existsSync(target.file)
  const text = exists ? readFileSync(target.file, 'utf8') : ''
  const doc = readDocument(text, target)
  const path = target.containerPath(doc)
  const container = child(doc, path)
  const previous = container[MCPX_ENTRY_NAME]
  const action = !exists ? 'created' : previous === undefined ? 'added' : sameJson(previous, target.entry) ? 'unchanged' : 'updated'
  const result = { host, file: target.file, action, entry: target.entry } as const
  if (action === 'unchanged' || options.dryRun) return { ...result, backup: null, droppedComments: false }
  container[MCPX_ENTRY_NAME] = target.entry
  const next =
    target.format === 'toml'
      ? { text: rewriteToml(text, target.file, target.entry as TomlEntry), droppedComments: false }
      : checkedEdit(text, text.trim() === '' ? undefined : setMember(text, [...path, MCPX_ENTRY_NAME], target.entry), doc, target.file)
  const backup = writeWithBackup(target.file, next.text)
  return { ...result, backup, droppedComments: next.droppedComments }
}

export interface UninstallResult {
  readonly host: HostId
  readonly file: string
  readonly action: 'removed' | 'absent'
  /** The entry that was (or would be) removed. */
  readonly entry: unknown
  readonly backup: string | null
  /** As InstallResult's. */
  readonly droppedComments: boolean
}

/** `mcpx uninstall <host>`: remove the mcpx entry from the host's config, backing the file up first. */
export function uninstallHost(host: HostId, env: HostEnv, options: { dryRun?: boolean } = {}): UninstallResult {
  const target = HOSTS[host].install(env)
  const absent = { host, file: target.file, action: 'absent', entry: undefined, backup: null, droppedComments: false } as const
  if (!existsSync(target.file)) return absent
  const text = readFileSync(target.file, 'utf8')
  const doc = readDocument(text, target)
  const path = target.containerPath(doc)
  const container = child(doc, path)
  const previous = container[MCPX_ENTRY_NAME]
  if (previous === undefined) return absent
  const removed = { host, file: target.file, action: 'removed', entry: previous } as const
  if (options.dryRun) return { ...removed, backup: null, droppedComments: false }
  delete container[MCPX_ENTRY_NAME]
  const next =
    target.format === 'toml'
      ? { text: `${withoutMcpxTable(text)}\n`, droppedComments: false }
      : checkedEdit(text, removeMember(text, [...path, MCPX_ENTRY_NAME]), doc, target.file)
  return { ...removed, backup: writeWithBackup(target.file, next.text), droppedComments: next.droppedComments }
}

/** The host's config as an object (an empty file: none yet). */
function readDocument(text: string, target: { file: string; format: string }): Record<string, unknown> {
  const doc = text.trim() === '' ? {} : target.format === 'toml' ? parseToml(text, target.file) : parseJsonc(text, target.file)
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new McpxError('CONFIG', `${target.file}: expected an object at the top level`, { file: target.file })
  return doc as Record<string, unknown>
}

/** The object at `keys` in `doc`, made (an empty object in place of anything else) where missing. */
function child(doc: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  let table = doc
  for (const key of keys) {
    const next = table[key]
    if (next === null || typeof next !== 'object' || Array.isArray(next)) table[key] = {}
    table = table[key] as Record<string, unknown>
  }
  return table
}

type TomlEntry = { command: string; args: string[]; env?: Record<string, string> }

/** The TOML text without any [mcp_servers.mcpx] table (and its sub-tables). */
function withoutMcpxTable(text: string): string {
  const kept: string[] = []
  let skipping = false
  for (const line of text.split('\n')) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line)
    if (header) skipping = /^mcp_servers\.("mcpx"|mcpx)(\.|$)/.test(header[1]!.replace(/\s+/g, ''))
    if (!skipping) kept.push(line)
  }
  return kept.join('\n').replace(/\n*$/, '')
}

/** Drop any [mcp_servers.mcpx] table (and its sub-tables), append the new one, and re-read it. */
function rewriteToml(text: string, file: string, entry: TomlEntry): string {
  const body = withoutMcpxTable(text)
  const envLine =
    entry.env && Object.keys(entry.env).length > 0
      ? `env = { ${Object.entries(entry.env)
          .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
          .join(', ')} }\n`
      : ''
  const section = `[mcp_servers.${MCPX_ENTRY_NAME}]\ncommand = ${JSON.stringify(entry.command)}\nargs = [${entry.args.map((arg) => JSON.stringify(arg)).join(', ')}]\n${envLine}`
  const next = body === '' ? section : `${body}\n\n${section}`
  const check = parseToml(next, file) as { mcp_servers?: Record<string, unknown> }
  if (!sameJson(check.mcp_servers?.[MCPX_ENTRY_NAME], entry)) {
    throw new McpxError(
      'CONFIG',
      `${file}: could not place [mcp_servers.${MCPX_ENTRY_NAME}] (it is defined in a form mcpx does not rewrite); edit the file by hand`,
      { file },
    )
  }
  return next
}
