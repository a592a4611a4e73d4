/**
 * Where OAuth state for one upstream lives: per authorization server (keyed by `issuer`, 2026-07-28
 * client-registration.mdx "Authorization Server Binding") its metadata, client and tokens, plus
 * which issuer is current. The file store keeps one 0600 JSON file per server URL in a 0700
 * directory the caller names (the user's mcpx home); writes are atomic (temp file + rename).
 */
import { createHash } from 'node:crypto'
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { McpxError } from '../errors/index.ts'
import type { RegisteredClient } from './client-registration.ts'
import type { AuthorizationServerMetadata } from './schemas.ts'
import type { StoredTokens } from './token-endpoint.ts'

export interface IssuerState {
  metadata?: AuthorizationServerMetadata
  client?: RegisteredClient
  tokens?: StoredTokens
}

export interface CredentialRecord {
  serverUrl: string
  /** Issuer of the authorization server currently named by the server's PRM. */
  issuer?: string
  /** PRM `resource`, verbatim (RFC 8707 `resource` parameter). */
  resource?: string
  issuers: Record<string, IssuerState>
}

export interface CredentialStore {
  load(serverUrl: string): Promise<CredentialRecord | undefined>
  save(record: CredentialRecord): Promise<void>
  remove(serverUrl: string): Promise<void>
}

/** Process-local store (tests, conformance, one-shot CLI calls without a home). */
export function createMemoryCredentialStore(): CredentialStore {
  const records = new Map<string, string>()
  return {
    load: async (serverUrl) => {
      const json = records.get(serverUrl)
      return json === undefined ? undefined : (JSON.parse(json) as CredentialRecord)
    },
    save: async (record) => {
      records.set(record.serverUrl, JSON.stringify(record))
    },
    remove: async (serverUrl) => {
      records.delete(serverUrl)
    },
  }
}

const FILE_MODE = 0o600
const DIR_MODE = 0o700

/** File of one server's record: `<dir>/<sha256(serverUrl)[:32]>.json`. */
export function credentialFilePath(dir: string, serverUrl: string): string {
  return join(dir, `${createHash('sha256').update(serverUrl).digest('hex').slice(0, 32)}.json`)
}

/** Store under `dir` (created 0700 on first save). Refresh tokens are secrets: files are 0600. */
export function createFileCredentialStore(dir: string): CredentialStore {
  return {
    async load(serverUrl) {
      let text: string
      try {
        text = await readFile(credentialFilePath(dir, serverUrl), 'utf8')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw new McpxError('CONFIG', `cannot read OAuth credentials in ${dir}: ${(error as Error).message}`, { dir }, { cause: error })
      }
      try {
        const record = JSON.parse(text) as CredentialRecord
        return record.serverUrl === serverUrl && typeof record.issuers === 'object' ? record : undefined
      } catch {
        // A corrupt file is treated as absent: the next login rewrites it.
        return undefined
      }
    },
    async save(record) {
      await mkdir(dir, { recursive: true, mode: DIR_MODE })
      const path = credentialFilePath(dir, record.serverUrl)
      const temp = `${path}.${process.pid}.${Date.now()}.tmp`
      await writeFile(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: FILE_MODE })
      await chmod(temp, FILE_MODE)
      await rename(temp, path)
    },
    async remove(serverUrl) {
      await rm(credentialFilePath(dir, serverUrl), { force: true })
    },
  }
}
