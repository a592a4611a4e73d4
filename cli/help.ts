/**
 * `--help` text for every command: usage, description, arguments, options, subcommands and
 * examples, wrapped to the terminal's width (80 columns off a terminal) and never coloured, so it
 * reads the same in a pager, a pipe or a file.
 */
import type { ArgsDef, CommandDef } from 'citty'
import { EXAMPLES } from './examples.ts'
import { SUMMARIES } from './summaries.ts'
import { stdoutIsTty } from './tty.ts'

const OFF_TTY_COLUMNS = 80

/** The width of `stream` on a terminal (process.stdout by default, created only when fd 1 is one), else 80. */
export function terminalColumns(stream?: NodeJS.WriteStream): number {
  if (stream === undefined && !stdoutIsTty()) return OFF_TTY_COLUMNS
  const target = stream ?? process.stdout
  return target.isTTY && target.columns ? target.columns : OFF_TTY_COLUMNS
}

/** Greedy word wrap; `indent` prefixes every line after the first as well. */
export function wrap(text: string, width: number, indent = ''): string {
  const lines: string[] = []
  for (const paragraph of text.split('\n')) {
    let line = ''
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line !== '' && indent.length + line.length + 1 + word.length > width) {
        lines.push(indent + line)
        line = word
      } else line = line === '' ? word : `${line} ${word}`
    }
    lines.push(indent + line)
  }
  return lines.join('\n')
}

/** Two columns: names on the left, their text wrapped beside them. */
function table(rows: [string, string][], width: number): string {
  const left = Math.min(Math.max(...rows.map(([name]) => name.length)) + 2, Math.floor(width / 3))
  return rows
    .map(([name, text]) => {
      const body = wrap(text, width, ' '.repeat(left + 2)).trimStart()
      return name.length + 2 > left ? `  ${name}\n${' '.repeat(left + 2)}${body}` : `  ${name.padEnd(left)}${body}`
    })
    .join('\n')
}

export async function renderHelp(command: CommandDef<any>, path: readonly string[], width = terminalColumns()): Promise<string> {
  const meta = (await resolve(command.meta)) ?? {}
  const args = ((await resolve(command.args)) ?? {}) as ArgsDef
  const subCommands = (await resolve(command.subCommands)) as Record<string, unknown> | undefined
  const name = ['mcpx', ...path].join(' ')
  const extra = EXAMPLES[path.join(' ')]
  const positionals = Object.entries(args).filter(([, def]) => def.type === 'positional')
  const options = Object.entries(args).filter(([, def]) => def.type !== 'positional')
  const usage =
    extra?.usage ??
    [
      name,
      subCommands ? '<command>' : '',
      ...positionals.map(([n, def]) =>
        (def as { required?: boolean }).required === false ? `[${n.toUpperCase()}]` : `<${n.toUpperCase()}>`,
      ),
      options.length ? '[options]' : '',
    ]
      .filter(Boolean)
      .join(' ')
  const out: string[] = [wrap(`Usage: ${usage}`, width, '  ').replace(/^ {2}/, '')]
  if (meta.description) out.push('', wrap(meta.description, width))
  if (extra?.notes) out.push('', ...extra.notes.map((note) => wrap(note, width)))
  if (positionals.length)
    out.push(
      '',
      'Arguments:',
      table(
        positionals.map(([n, def]) => [n.toUpperCase(), String(def.description ?? '')]),
        width,
      ),
    )
  if (options.length) {
    const rows = options.map(([n, def]): [string, string] => {
      const d = def as { type?: string; valueHint?: string; description?: string; alias?: string | string[]; default?: unknown }
      const aliases = [d.alias]
        .flat()
        .filter((a): a is string => typeof a === 'string')
        .map((a) => (a.length === 1 ? `-${a}` : `--${a}`))
      const value = d.type === 'boolean' ? '' : ` <${d.valueHint ?? 'value'}>`
      return [
        [...aliases, `--${n}${value}`].join(', '),
        `${d.description ?? ''}${d.default !== undefined && d.type !== 'boolean' ? ` (default: ${String(d.default)})` : ''}`,
      ]
    })
    rows.push(['-h, --help', 'Show this help'])
    out.push('', 'Options:', table(rows, width))
  }
  if (subCommands) {
    const rows: [string, string][] = []
    for (const [sub, def] of Object.entries(subCommands)) {
      if (sub === 'sandbox-child' || sub === 'demo-server') continue
      // The root's list comes from cli/summaries.ts: `mcpx --help` loads no command module.
      const summary = path.length === 0 ? SUMMARIES[sub] : undefined
      if (summary !== undefined) {
        rows.push([sub, summary])
        continue
      }
      const loaded = (await resolve(def as CommandDef<any>)) as CommandDef<any>
      const subMeta = (await resolve(loaded.meta)) ?? {}
      if ((subMeta as { hidden?: boolean }).hidden) continue
      rows.push([sub, String(subMeta.description ?? '')])
    }
    out.push('', 'Commands:', table(rows, width))
    out.push('', wrap(`Run \`${name} <command> --help\` for a command's own options.`, width))
  }
  if (extra?.examples?.length)
    out.push('', 'Examples:', ...extra.examples.map((example) => wrap(example, width, '    ').replace(/^ {4}/, '  ')))
  return `${out.join('\n')}\n`
}

async function resolve<T>(value: T | (() => T | Promise<T>) | Promise<T> | undefined): Promise<T | undefined> {
  return typeof value === 'function' ? await (value as () => T | Promise<T>)() : await value
}
