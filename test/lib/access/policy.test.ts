/** The `access` policy (lib/access/policy.ts): which rules apply, globs, deny over allow, the default. */
import { describe, expect, test } from 'bun:test'
import * as v from 'valibot'
import { AccessPolicySchema, OWNER, PolicyEvaluator, type Principal } from '../../../lib/access/index.ts'

const policy = v.parse(AccessPolicySchema, {
  rules: [
    { name: 'readers', groups: ['staff'], allow: ['fs.read_*', 'search'] },
    { name: 'no-secrets', scopes: ['mcp:*'], deny: ['fs.read_secret*'] },
    { name: 'admins', subjects: ['root-*'], allow: ['*'] },
  ],
})
const who = (subject: string, groups: string[] = [], scopes: string[] = ['mcp:tools']): Principal => ({
  kind: 'oauth',
  id: `iss#${subject}`,
  subject,
  groups,
  scopes,
})

describe('PolicyEvaluator', () => {
  test('an allow glob of an applying rule admits, naming the rule', () => {
    expect(new PolicyEvaluator(policy, who('ann', ['staff'])).item('fs', 'read_file')).toEqual({ allowed: true, rule: 'readers' })
  })

  test('a server-only pattern covers the whole server', () => {
    expect(new PolicyEvaluator(policy, who('ann', ['staff'])).item('search', 'query').allowed).toBe(true)
  })

  test('deny wins over allow, whichever rule comes first', () => {
    expect(new PolicyEvaluator(policy, who('root-1')).item('fs', 'read_secrets')).toEqual({
      allowed: false,
      rule: 'no-secrets',
      pattern: 'fs.read_secret*',
      reason: 'rule "no-secrets" denies "fs.read_secret*"',
    })
  })

  test('nothing allowed is denied by default, and rules of other principals do not apply', () => {
    expect(new PolicyEvaluator(policy, who('bob', ['guests'])).item('fs', 'read_file')).toEqual({
      allowed: false,
      reason: 'no access rule allows it (default deny)',
    })
  })

  test('default allow admits what no rule denies', () => {
    const open = v.parse(AccessPolicySchema, { default: 'allow', rules: [{ name: 'x', deny: ['fs.write'] }] })
    expect(new PolicyEvaluator(open, who('bob')).item('fs', 'read').allowed).toBe(true)
    expect(new PolicyEvaluator(open, who('bob')).item('fs', 'write').allowed).toBe(false)
  })

  test('a server is visible for resources when an allow reaches it and no deny covers all of it', () => {
    const staff = new PolicyEvaluator(policy, who('ann', ['staff']))
    expect(staff.server('fs')).toBe(true)
    expect(staff.server('db')).toBe(false)
    const walled = v.parse(AccessPolicySchema, {
      rules: [
        { name: 'all', allow: ['*'] },
        { name: 'no-db', deny: ['db'] },
      ],
    })
    expect(new PolicyEvaluator(walled, who('ann')).server('db')).toBe(false)
    expect(new PolicyEvaluator(walled, who('ann')).server('fs')).toBe(true)
  })

  test('the machine owner is not subject to rules', () => {
    expect(new PolicyEvaluator(policy, OWNER).item('db', 'drop').allowed).toBe(true)
  })

  test('the config schema refuses unknown keys in a rule', () => {
    expect(v.safeParse(AccessPolicySchema, { rules: [{ name: 'x', allows: ['*'] }] }).success).toBe(false)
  })
})
