/**
 * Everything a command needs, resolved once per process: settings (environment + flags) and the
 * log level. Commands receive this instead of reading process.env themselves.
 */
import { setLogLevel } from '../lib/log.ts'
import { type Settings, type SettingOverrides, resolveSettings } from '../lib/settings/index.ts'

export interface CliContext {
  readonly settings: Settings
  readonly env: Readonly<Record<string, string | undefined>>
  readonly json: boolean
}

export function loadContext(args: { json?: boolean; verbose?: boolean; quiet?: boolean }, overrides: SettingOverrides = {}): CliContext {
  if (args.verbose) setLogLevel(4)
  else if (args.quiet) setLogLevel(1)
  const env = process.env
  return { settings: resolveSettings(env, overrides), env, json: Boolean(args.json) }
}
