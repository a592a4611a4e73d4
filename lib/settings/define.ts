/**
 * The shape of one tunable. Every timeout, limit, size, interval, path and port in mcpx is declared
 * with `defineSettings` in one of the tables beside this file and read only through `resolveSettings`.
 */
export type SettingValue = number | string | boolean

export interface SettingDef<T extends SettingValue = SettingValue> {
  /** Value used when neither the environment nor a config/flag override sets one. */
  readonly default: T
  /** Environment variable that overrides the default (always `MCPX_*`). */
  readonly env?: `MCPX_${string}`
  /** One line for the README's settings table and `mcpx settings`. */
  readonly doc: string
  /** A string setting that names one of these: anything else is a CONFIG error naming them. */
  readonly oneOf?: readonly string[]
}

export type SettingsTable = Readonly<Record<string, SettingDef>>

/** Identity helper that keeps literal keys and value types of a table. */
export function defineSettings<const T extends SettingsTable>(table: T): T {
  return table
}
