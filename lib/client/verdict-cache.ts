/**
 * Era verdicts per server configuration, so the modern probe costs one round trip per
 * configuration rather than per start (2026-07-28 basic/versioning.mdx "Backward Compatibility with
 * Initialization-Based Versions": clients SHOULD
 * cache the era per process/origin, MAY persist it, and re-probe when the assumption fails).
 * In memory always; persisted as `<cacheDir>/era-verdicts.json` when the caller gives a directory.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { log } from '../log/index.ts'
import { eraVerdicts } from './caches.ts'
import type { TransportKind } from '../transport/index.ts'
import { type Era, type Revision, isRevision } from '../wire/index.ts'
import { type Target, isHttpTarget } from './connect-options.ts'

export interface Verdict {
  era: Era
  transport: TransportKind
  revision: Revision
  savedAtMs: number
}

const FILE = 'era-verdicts.json'
const PRIVATE_DIR = 0o700
const PRIVATE_FILE = 0o600

/** One key per configuration: the command line and cwd (stdio) or the endpoint URL and pinned transport (HTTP). */
export function verdictKey(target: Target): string {
  if (isHttpTarget(target)) return JSON.stringify(['http', target.url, target.transport ?? null])
  return JSON.stringify(['stdio', target.command, target.args ?? [], target.cwd ?? null])
}

export function readVerdict(key: string, ttlMs: number, cacheDir?: string): Verdict | undefined {
  let verdict = eraVerdicts.get(key)
  if (!verdict && cacheDir) {
    verdict = loadFile(cacheDir)[key]
    if (verdict) eraVerdicts.set(key, verdict)
  }
  if (!verdict || !isRevision(verdict.revision)) return undefined
  if (ttlMs > 0 && Date.now() - verdict.savedAtMs > ttlMs) return undefined
  return verdict
}

export function writeVerdict(key: string, verdict: Omit<Verdict, 'savedAtMs'>, cacheDir?: string): void {
  const entry = { ...verdict, savedAtMs: Date.now() }
  eraVerdicts.set(key, entry)
  if (!cacheDir) return
  try {
    // Private whatever the umask: the cache names the user's servers (commands, URLs).
    mkdirSync(cacheDir, { recursive: true, mode: PRIVATE_DIR })
    chmodSync(cacheDir, PRIVATE_DIR)
    const all = { ...loadFile(cacheDir), [key]: entry }
    const path = join(cacheDir, FILE)
    // Write-then-rename so a concurrent reader never sees half a file.
    const temp = `${path}.${process.pid}.tmp`
    writeFileSync(temp, `${JSON.stringify(all, null, 2)}\n`, { mode: PRIVATE_FILE })
    chmodSync(temp, PRIVATE_FILE)
    renameSync(temp, path)
  } catch (error) {
    log.debug(`era verdict not persisted in ${cacheDir}: ${error}`)
  }
}

/** Drop the in-memory verdicts (tests). */
export function clearVerdictMemory(): void {
  eraVerdicts.clear()
}

function loadFile(cacheDir: string): Record<string, Verdict> {
  try {
    const parsed = JSON.parse(readFileSync(join(cacheDir, FILE), 'utf8'))
    return typeof parsed === 'object' && parsed !== null ? parsed : {}
  } catch {
    return {}
  }
}
