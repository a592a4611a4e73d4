/**
 * The one settings registry. Each room declares its tunables in a table beside this file; this door
 * merges them and resolves values once: flag/config override > MCPX_* environment > default.
 * Nothing else in mcpx reads `process.env` (pinned by test/lib/settings/registry.test.ts).
 */
import { McpxError } from '../errors/index.ts'
import type { SettingDef, SettingValue } from './define.ts'
import { PROTOCOL_SETTINGS } from './protocol.ts'
import { AUTH_SETTINGS } from './auth.ts'
import { ACCESS_SETTINGS } from './access.ts'
import { CONFIG_SETTINGS } from './config.ts'
import { DAEMON_SETTINGS } from './daemon.ts'
import { CODEMODE_SETTINGS } from './codemode.ts'
import { CLIENT_SETTINGS } from './client.ts'
import { TRANSPORT_SETTINGS } from './transport.ts'
import { GATEWAY_SETTINGS } from './gateway.ts'
import { SERVER_SETTINGS } from './server.ts'

export { type McpxPaths, resolvePaths } from './config.ts'
export { defineSettings, type SettingDef, type SettingValue, type SettingsTable } from './define.ts'

export const SETTINGS = {
  ...PROTOCOL_SETTINGS,
  ...AUTH_SETTINGS,
  ...ACCESS_SETTINGS,
  ...CONFIG_SETTINGS,
  ...DAEMON_SETTINGS,
  ...CODEMODE_SETTINGS,
  ...CLIENT_SETTINGS,
  ...TRANSPORT_SETTINGS,
  ...GATEWAY_SETTINGS,
  ...SERVER_SETTINGS,
} as const

type Widen<T> = T extends number ? number : T extends string ? string : T extends boolean ? boolean : never
export type SettingName = keyof typeof SETTINGS
export type Settings = { readonly [K in SettingName]: Widen<(typeof SETTINGS)[K]['default']> }
export type SettingOverrides = { readonly [K in SettingName]?: Settings[K] }

/** Resolve every setting from the environment and explicit overrides. Bad values throw CONFIG. */
export function resolveSettings(env: Record<string, string | undefined> = {}, overrides: SettingOverrides = {}): Settings {
  const out: Record<string, SettingValue> = {}
  for (const [name, def] of Object.entries(SETTINGS) as [SettingName, SettingDef][]) {
    const override = overrides[name]
    if (override !== undefined) out[name] = coerce(name, def, override, 'override')
    else if (def.env && env[def.env] !== undefined && env[def.env] !== '') out[name] = coerce(name, def, env[def.env]!, def.env)
    else out[name] = def.default
  }
  return Object.freeze(out) as Settings
}

/** Defaults only: for tests and library callers that do not read an environment. */
export function defaultSettings(overrides: SettingOverrides = {}): Settings {
  return resolveSettings({}, overrides)
}

function coerce(name: string, def: SettingDef, raw: SettingValue, source: string): SettingValue {
  if (typeof def.default === 'number') {
    const n = typeof raw === 'number' ? raw : Number(raw)
    if (!Number.isFinite(n) || n < 0) {
      throw new McpxError('CONFIG', `setting ${name} (from ${source}) must be a non-negative number, got ${JSON.stringify(raw)}`, {
        setting: name,
        source,
      })
    }
    return n
  }
  if (typeof def.default === 'boolean') {
    if (typeof raw === 'boolean') return raw
    const s = String(raw).toLowerCase()
    if (['1', 'true', 'yes', 'on'].includes(s)) return true
    if (['0', 'false', 'no', 'off'].includes(s)) return false
    throw new McpxError('CONFIG', `setting ${name} (from ${source}) must be true or false, got ${JSON.stringify(raw)}`, {
      setting: name,
      source,
    })
  }
  const text = String(raw)
  if (def.oneOf !== undefined && !def.oneOf.includes(text)) {
    throw new McpxError('CONFIG', `setting ${name} (from ${source}) must be one of ${def.oneOf.join(', ')}, got ${JSON.stringify(raw)}`, {
      setting: name,
      source,
      expected: def.oneOf,
    })
  }
  return text
}
