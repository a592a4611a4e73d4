/**
 * The sealed MRTR `requestState` (2026-07-28 basic/patterns/mrtr.mdx "Server Requirements": treat
 * it as attacker-controlled, protect its integrity, bound it by expiry, to the originating method +
 * params and to the caller). AES-256-GCM under a key ring (seal.ts): replicas sharing the ring
 * (setting sealKeyFile) open each other's tokens; without one, a random key per process. A token
 * from elsewhere, edited, expired or presented on a different request is rejected with -32602.
 * With `singleUse` a token also opens only once (mrtr.mdx: servers for which a requestState must be
 * consumed at most once enforce it server-side): its digest is kept until the token expires.
 */
import { RPC, RpcError } from '../errors/index.ts'
import { type KeyRing, open as openSealed, randomKeyRing, seal as sealText } from './seal.ts'
import type { JsonObject } from './server-definition.ts'

/** What a token carries between rounds. */
export interface RequestStatePayload {
  /** Answers collected in earlier rounds, by input key. */
  answers: Record<string, JsonObject>
  /** Keys asked in the last round (only these are accepted from inputResponses). */
  asked: string[]
  /** Handler-owned state (ctx.setState). */
  state?: unknown
}

interface Sealed extends RequestStatePayload {
  /** method */
  m: string
  /** digest of the salient params */
  d: string
  /** expiry, epoch ms */
  x: number
  /** principal digest ('' when none) */
  p: string
  /** the replica that minted it (setting replicaId), when replicas share the key ring */
  o?: string
}

export interface RequestStateCodec {
  /** `principal`: the authenticated caller, when known; a token only opens for the same one. */
  seal(method: string, params: JsonObject, payload: RequestStatePayload, principal?: string): string
  open(method: string, params: JsonObject, token: unknown, principal?: string): RequestStatePayload
}

/**
 * The replica that minted a requestState, read without the request's bindings (those are checked
 * by the owner when it opens the token): undefined when it names none or does not open.
 */
export function requestStateOwner(ring: KeyRing, token: unknown): string | undefined {
  if (typeof token !== 'string') return undefined
  const text = openSealed(ring, token, PURPOSE)
  if (text === undefined) return undefined
  try {
    const owner = (JSON.parse(text) as Sealed).o
    return typeof owner === 'string' ? owner : undefined
  } catch {
    return undefined
  }
}

/** Params that vary between rounds of the same logical request and so are not bound. */
const ROUND_KEYS = new Set(['_meta', 'inputResponses', 'requestState', 'task'])

/** Associated data: a requestState opens only as a requestState. */
const PURPOSE = 'mcpx requestState v1'

export function createRequestStateCodec(
  ttlMs: number,
  ring: KeyRing = randomKeyRing(),
  now: () => number = Date.now,
  owner = '',
  singleUse = false,
): RequestStateCodec {
  /** Digests of tokens already opened, with their expiry, in expiry order (every token lives ttlMs). */
  const used = new Map<string, number>()
  const consume = (token: string, expiry: number): boolean => {
    for (const [digest, until] of used) {
      if (until > now()) break
      used.delete(digest)
    }
    const digest = new Bun.CryptoHasher('sha256').update(token).digest('base64url')
    if (used.has(digest)) return false
    used.set(digest, expiry)
    return true
  }
  return {
    seal(method, params, payload, principal) {
      const sealed: Sealed = {
        ...payload,
        m: method,
        d: digestParams(params),
        x: now() + ttlMs,
        p: digestPrincipal(principal),
        ...(owner !== '' && { o: owner }),
      }
      return sealText(ring, JSON.stringify(sealed), PURPOSE)
    },
    open(method, params, token, principal) {
      const reject = (why: string) => new RpcError(RPC.INVALID_PARAMS, `Invalid requestState: ${why}`, { reason: why })
      if (typeof token !== 'string') throw reject('not a string')
      const text = openSealed(ring, token, PURPOSE)
      if (text === undefined) throw reject('integrity check failed')
      let sealed: Sealed
      try {
        sealed = JSON.parse(text) as Sealed
      } catch {
        throw reject('malformed')
      }
      if (now() >= sealed.x) throw reject('expired')
      if (sealed.m !== method || sealed.d !== digestParams(params)) throw reject('bound to a different request')
      if (sealed.p !== digestPrincipal(principal)) throw reject('bound to a different caller')
      if (singleUse && !consume(token, sealed.x)) throw reject('already used')
      return { answers: sealed.answers ?? {}, asked: sealed.asked ?? [], state: sealed.state }
    },
  }
}

function digestPrincipal(principal: string | undefined): string {
  return principal === undefined ? '' : new Bun.CryptoHasher('sha256').update(principal).digest('base64url')
}

function digestParams(params: JsonObject): string {
  const salient: JsonObject = {}
  for (const k of Object.keys(params).sort()) if (!ROUND_KEYS.has(k)) salient[k] = params[k]
  return new Bun.CryptoHasher('sha256').update(stableStringify(salient)).digest('base64url')
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`
  if (value && typeof value === 'object') {
    const obj = value as JsonObject
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify(obj[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}
