/**
 * `mcpx settings`: every tunable with its current value, default, override variable and meaning.
 * `--markdown` prints the defaults table the README carries (test/cli/settings.test.ts keeps the
 * two equal, so the documentation cannot drift from the registry).
 */
import { defineCommand } from 'citty'
import { SETTINGS, type SettingName } from '../../lib/settings/index.ts'
import { commonArgs } from '../args.ts'
import { loadContext } from '../context.ts'
import { printJson } from '../render.ts'

/** The README's settings table: one row per setting, defaults only (no environment applied). */
export function settingsMarkdown(): string {
  const rows = (Object.keys(SETTINGS) as SettingName[]).map((name) => {
    const def = SETTINGS[name]
    const value = typeof def.default === 'string' ? (def.default === '' ? '(empty)' : def.default) : String(def.default)
    return `| \`${name}\` | \`${def.env}\` | ${value} | ${def.doc.replaceAll('|', '\\|')} |`
  })
  return ['| setting | environment | default | meaning |', '|---|---|---|---|', ...rows].join('\n')
}

export default defineCommand({
  meta: { name: 'settings', description: 'List every tunable: value, default, environment override, meaning' },
  args: { json: commonArgs.json, markdown: { type: 'boolean', description: 'The defaults as a markdown table (as in the README)' } },
  run({ args }) {
    if (args.markdown) {
      process.stdout.write(`${settingsMarkdown()}\n`)
      return
    }
    const ctx = loadContext(args)
    const rows = (Object.keys(SETTINGS) as SettingName[]).map((name) => ({
      name,
      value: ctx.settings[name],
      default: SETTINGS[name].default,
      env: SETTINGS[name].env ?? null,
      doc: SETTINGS[name].doc,
    }))
    if (ctx.json) {
      printJson(rows)
      return
    }
    const width = Math.max(...rows.map((r) => r.name.length))
    for (const row of rows) {
      process.stdout.write(`${row.name.padEnd(width)}  ${String(row.value).padEnd(12)} ${row.env ?? ''}\n    ${row.doc}\n`)
    }
  },
})
