/**
 * Who may use which upstream servers and tools: the config's `access` section. A rule applies to a
 * principal when one of its `subjects`, `groups` or `scopes` matches the token's claims (a rule
 * naming none applies to every OAuth principal). Patterns are globs (`*`, `?`) over qualified
 * names `server.tool`; a pattern without a dot means the whole server. Any applying `deny` wins,
 * then any applying `allow`; otherwise `default` (deny unless set). The machine's owner is not
 * subject to rules.
 */
import * as v from 'valibot'
import { globRegExps } from './caches.ts'
import type { Principal } from './principal.ts'

const Globs = v.array(v.pipe(v.string(), v.minLength(1, 'must not be empty')))

const AccessRuleSchema = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
  subjects: v.optional(Globs),
  groups: v.optional(Globs),
  scopes: v.optional(Globs),
  allow: v.optional(Globs),
  deny: v.optional(Globs),
})

export const AccessPolicySchema = v.strictObject({
  default: v.optional(v.picklist(['allow', 'deny'], 'must be "allow" or "deny"'), 'deny'),
  rules: v.optional(v.array(AccessRuleSchema), []),
})

export type AccessRule = v.InferOutput<typeof AccessRuleSchema>
export type AccessPolicy = v.InferOutput<typeof AccessPolicySchema>

/** No `access` section: every authenticated principal may use everything. */
export const OPEN_POLICY: AccessPolicy = { default: 'allow', rules: [] }

export type Decision =
  | { readonly allowed: true; readonly rule?: string }
  | { readonly allowed: false; readonly rule?: string; readonly pattern?: string; readonly reason: string }

/** `*` any run of characters, `?` one; everything else literal. Compiled once per pattern. */
export function globMatch(pattern: string, value: string): boolean {
  let re = globRegExps.get(pattern)
  if (re === undefined) {
    re = new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
      's',
    )
    globRegExps.set(pattern, re)
  }
  return re.test(value)
}

/** Server names hold no dot (config SERVER_NAME), so the first dot splits server from item. */
function splitPattern(pattern: string): { server: string; item: string } {
  const dot = pattern.indexOf('.')
  return dot === -1 ? { server: pattern, item: '*' } : { server: pattern.slice(0, dot), item: pattern.slice(dot + 1) }
}

/** A server-only pattern covers every item of that server. */
function qualified(pattern: string): string {
  return pattern.includes('.') ? pattern : `${pattern}.*`
}

function applies(rule: AccessRule, principal: Principal): boolean {
  if (!rule.subjects && !rule.groups && !rule.scopes) return true
  if (rule.subjects?.some((p) => globMatch(p, principal.subject))) return true
  if (rule.groups?.some((p) => principal.groups.some((g) => globMatch(p, g)))) return true
  if (rule.scopes?.some((p) => principal.scopes.some((s) => globMatch(p, s)))) return true
  return false
}

export class PolicyEvaluator {
  readonly #rules: readonly AccessRule[]

  constructor(
    private readonly policy: AccessPolicy,
    principal: Principal,
  ) {
    this.#rules = principal.kind === 'owner' ? [] : policy.rules.filter((rule) => applies(rule, principal))
    this.owner = principal.kind === 'owner'
  }

  readonly owner: boolean

  /** May the principal use `server.item` (a tool or a prompt)? Names the deciding rule. */
  item(server: string, item: string): Decision {
    if (this.owner) return { allowed: true }
    const name = `${server}.${item}`
    for (const rule of this.#rules) {
      const pattern = rule.deny?.find((p) => globMatch(qualified(p), name))
      if (pattern !== undefined) return { allowed: false, rule: rule.name, pattern, reason: `rule "${rule.name}" denies "${pattern}"` }
    }
    for (const rule of this.#rules) if (rule.allow?.some((p) => globMatch(qualified(p), name))) return { allowed: true, rule: rule.name }
    if (this.policy.default === 'allow') return { allowed: true }
    return { allowed: false, reason: 'no access rule allows it (default deny)' }
  }

  /**
   * May the principal see the server's resources? Resource URIs are not names, so this is decided
   * per server: some applying allow pattern reaches the server and no applying deny covers all of it.
   */
  server(server: string): boolean {
    if (this.owner) return true
    for (const rule of this.#rules)
      if (rule.deny?.some((p) => splitPattern(p).item === '*' && globMatch(splitPattern(p).server, server))) return false
    if (this.#rules.some((rule) => rule.allow?.some((p) => globMatch(splitPattern(p).server, server)))) return true
    return this.policy.default === 'allow'
  }
}
