/**
 * Request ids passed through byte for byte. A JSON-RPC id is opaque to its receiver, but
 * JSON.parse turns an integer beyond 2^53 into the nearest double (9007199254740993 → …992), and
 * the answer would name another request. Such an id is kept as its literal text inside a marked
 * string while mcpx holds the message, and written back as that literal in the answer.
 */

/** Marks a kept literal; the nonce keeps a peer from forging one. */
const MARK = `\u0000mcpx-raw-id-${Math.random().toString(36).slice(2)}:`
/** The mark as JSON.stringify writes it (the NUL escaped). */
const MARK_IN_JSON = JSON.stringify(MARK).slice(1, -1)
const UNSAFE_ID = /"id"\s*:\s*(-?\d{16,})(?=\s*[,}\]])/g
const MARKED = new RegExp(`"${MARK_IN_JSON.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}(-?\\d+)"`, 'g')

/**
 * After `JSON.parse(text)` gave `value` (a message or a batch): each integer id beyond 2^53 is
 * replaced by its literal text from `text`, marked. Cheap when no id is that long (no scan of `text`).
 */
export function keepRawIds<T>(text: string, value: T): T {
  // Only a message whose id parsed to an unsafe number has anything to keep: most have none, and
  // are not scanned.
  if (!(Array.isArray(value) ? value.some(hasUnsafeId) : hasUnsafeId(value))) return value
  UNSAFE_ID.lastIndex = 0
  const found = UNSAFE_ID.test(text)
  // matchAll starts from the regex's lastIndex, which test() moved past the first match.
  UNSAFE_ID.lastIndex = 0
  if (!found) return value
  const literals = [...text.matchAll(UNSAFE_ID)].map((m) => m[1]!)
  for (const message of Array.isArray(value) ? value : [value]) {
    if (typeof message !== 'object' || message === null) continue
    const id = (message as { id?: unknown }).id
    if (typeof id !== 'number' || Number.isSafeInteger(id)) continue
    const literal = literals.find((l) => Number(l) === id)
    if (literal !== undefined) (message as { id: unknown }).id = `${MARK}${literal}`
  }
  return value
}

function hasUnsafeId(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false
  const id = (message as { id?: unknown }).id
  return typeof id === 'number' && !Number.isSafeInteger(id)
}

/** Serialized JSON with every kept id written back as the literal it came as. */
export function restoreRawIds(json: string): string {
  return json.includes(MARK_IN_JSON) ? json.replace(MARKED, '$1') : json
}
