/**
 * The config file's `settings` section: setting names from the registry, each with a value of its
 * default's type. It is checked here by hand, not with a valibot schema, and it can be read alone:
 * a warm `mcpx call` needs the file's settings (deadlines, samplingCommand) but not the rest of the
 * file, and building the file's schemas would cost it a few ms (README "Start-up and memory").
 * The whole-file load (load.ts) checks its section with the same function.
 */
import { dirname, resolve } from 'node:path'
import { type McpxPaths, type SettingName, type SettingOverrides, type Settings, SETTINGS, resolveSettings } from '../settings/index.ts'
import { readEnvFile } from './environment.ts'
import { configError, interpolateDocument } from './interpolate.ts'
import { parseConfigDocument, readConfigText } from './document.ts'
import { findConfigFile } from './location.ts'

type Env = Readonly<Record<string, string | undefined>>

const isSetting = (name: string): name is SettingName => Object.hasOwn(SETTINGS, name)

/** What is wrong with `value` for a setting whose default is `fallback`, or undefined. */
function valueProblem(fallback: unknown, value: unknown): string | undefined {
  if (typeof fallback === 'number') {
    if (typeof value !== 'number') return 'must be a number'
    return value < 0 ? 'must not be negative' : undefined
  }
  if (typeof fallback === 'boolean') return typeof value === 'boolean' ? undefined : 'must be true or false'
  return typeof value === 'string' ? undefined : 'must be a string'
}

/** The section (already interpolated) as overrides; a wrong value, then an unknown name, is a CONFIG error naming it. */
export function checkSettingsSection(file: string, section: unknown): SettingOverrides {
  if (section === undefined) return {}
  if (section === null || typeof section !== 'object' || Array.isArray(section))
    throw configError({ file, path: ['settings'] }, 'must be an object keyed by setting name')
  const entries = Object.entries(section as Record<string, unknown>)
  const out: Record<string, unknown> = {}
  for (const [name, value] of entries) {
    if (!isSetting(name) || value === undefined) continue
    const problem = valueProblem(SETTINGS[name].default, value)
    if (problem !== undefined) throw configError({ file, path: ['settings', name] }, problem)
    out[name] = value
  }
  const unknown = entries.find(([name]) => !isSetting(name))
  if (unknown !== undefined) throw configError({ file, path: ['settings', unknown[0]] }, 'unknown setting (`mcpx settings` lists them)')
  return out as SettingOverrides
}

/**
 * The `settings` section of the config file `paths` name, read without the rest of the file: its
 * `envFile` and `${VAR}` apply as in a whole load, but servers and `access` are not looked at
 * (a file with a bad server entry still gives its settings here). No file: no overrides.
 */
export function readSettingsSection(paths: McpxPaths, env: Env): SettingOverrides {
  const file = findConfigFile(paths)
  if (file === null) return {}
  const { settings, envFile } = parseConfigDocument(readConfigText(file), file)
  if (settings === undefined) return {}
  const fromFile = typeof envFile === 'string' && envFile !== '' ? readEnvFile(resolve(dirname(file), envFile), file) : {}
  return checkSettingsSection(file, interpolateDocument(settings, { ...env, ...fromFile }, file, ['settings']))
}

/**
 * Settings with the config file in the chain: flags > MCPX_* environment > config `settings` >
 * defaults (an environment variable the user set beats the file they share across shells).
 */
export function resolveConfiguredSettings(
  env: Env,
  config: { readonly settings: SettingOverrides },
  flags: SettingOverrides = {},
): Settings {
  const fromFile: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(config.settings)) {
    const envName = SETTINGS[name as SettingName].env
    if (envName !== undefined && env[envName] !== undefined && env[envName] !== '') continue
    fromFile[name] = value
  }
  return resolveSettings(env, { ...(fromFile as SettingOverrides), ...flags })
}
