/** `mcpx settings`: every tunable with its current value, default, override variable and meaning. */
import { defineCommand } from 'citty'
import { SETTINGS, type SettingName } from '../../lib/settings/index.ts'
import { commonArgs } from '../args.ts'
import { loadContext } from '../context.ts'

export default defineCommand({
  meta: { name: 'settings', description: 'List every tunable: value, default, environment override, meaning' },
  args: { json: commonArgs.json },
  run({ args }) {
    const ctx = loadContext(args)
    const rows = (Object.keys(SETTINGS) as SettingName[]).map((name) => ({
      name,
      value: ctx.settings[name],
      default: SETTINGS[name].default,
      env: SETTINGS[name].env ?? null,
      doc: SETTINGS[name].doc,
    }))
    if (ctx.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
      return
    }
    const width = Math.max(...rows.map((r) => r.name.length))
    for (const row of rows) {
      process.stdout.write(`${row.name.padEnd(width)}  ${String(row.value).padEnd(12)} ${row.env ?? ''}\n    ${row.doc}\n`)
    }
  },
})
