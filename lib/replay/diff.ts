/**
 * Structural differences between a recorded and an observed JSON value, as JSON Pointer paths.
 * Used to score the closest recorded request and to report replay divergences. A recorded
 * "[REDACTED]" matches any observed value.
 */
import { isRecord } from '../wire/index.ts'
import { isWildcard } from './volatile.ts'

export interface Difference {
  /** JSON Pointer of the differing value ('' = the whole value). */
  readonly path: string
  readonly recorded?: unknown
  readonly observed?: unknown
  readonly kind: 'changed' | 'missing' | 'added'
}

/** Every difference between `recorded` and `observed` (recorded is the reference). */
export function diffValues(recorded: unknown, observed: unknown, path = ''): Difference[] {
  if (isWildcard(recorded)) return []
  if (Array.isArray(recorded) && Array.isArray(observed)) {
    const out: Difference[] = []
    const length = Math.max(recorded.length, observed.length)
    for (let i = 0; i < length; i++) {
      const child = `${path}/${i}`
      if (i >= observed.length) out.push({ path: child, recorded: recorded[i], kind: 'missing' })
      else if (i >= recorded.length) out.push({ path: child, observed: observed[i], kind: 'added' })
      else out.push(...diffValues(recorded[i], observed[i], child))
    }
    return out
  }
  if (isRecord(recorded) && isRecord(observed)) {
    const out: Difference[] = []
    for (const key of new Set([...Object.keys(recorded), ...Object.keys(observed)])) {
      const child = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
      if (!(key in observed)) out.push({ path: child, recorded: recorded[key], kind: 'missing' })
      else if (!(key in recorded)) out.push({ path: child, observed: observed[key], kind: 'added' })
      else out.push(...diffValues(recorded[key], observed[key], child))
    }
    return out
  }
  return Object.is(recorded, observed) ? [] : [{ path, recorded, observed, kind: 'changed' }]
}

/** Human lines: `- /result/content/0/text: "a"` / `+ …: "b"`. */
export function formatDifferences(differences: readonly Difference[]): string[] {
  const lines: string[] = []
  for (const d of differences) {
    const where = d.path === '' ? '(value)' : d.path
    if (d.kind !== 'added') lines.push(`- ${where}: ${short(d.recorded)}`)
    if (d.kind !== 'missing') lines.push(`+ ${where}: ${short(d.observed)}`)
  }
  return lines
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined'
  return text.length > 200 ? `${text.slice(0, 197)}...` : text
}
