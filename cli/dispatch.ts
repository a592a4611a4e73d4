/**
 * Runs one mcpx command line: finds the (sub)command, answers --help/--version, parses the rest
 * strictly (cli/parse.ts) and runs the command, with every failure going through cli/exit.ts.
 * citty supplies the command definitions only; its runner exits 1 on every failure and its parser
 * accepts any flag, neither of which a Unix tool should do.
 */
import type { CommandDef } from 'citty'
import { McpxError } from '../lib/errors/index.ts'
import { COMMON_SWITCHES } from './args.ts'
import { suggest } from '../lib/gateway/index.ts'
import { EXIT, reportError, setExitCode } from './exit.ts'
import { usesProcessStdout, writeStdout } from './output.ts'
import { parseCommandLine } from './parse.ts'

const HELP = new Set(['--help', '-h'])
const VERSION_FLAGS = new Set(['--version', '-v'])

let running: CommandDef<any> | undefined

/** The root command being run (commands such as `completion` list their siblings from it). */
export function rootCommand(): CommandDef<any> {
  if (running === undefined) throw new Error('rootCommand() outside dispatch()')
  return running
}

export async function dispatch(root: CommandDef<any>, rawArgs: readonly string[], version: string): Promise<void> {
  running = root
  const dashes = rawArgs.indexOf('--')
  const flagsPart = dashes >= 0 ? rawArgs.slice(0, dashes) : rawArgs
  const json = flagsPart.includes('--json')
  try {
    let command = root
    const path: string[] = []
    /** Options every command takes, given before it (`mcpx --config x.json servers`): handed to the command. */
    const leading: string[] = []
    let index = 0
    while (true) {
      const subCommands = (await resolve(command.subCommands)) as Record<string, unknown> | undefined
      if (!subCommands) break
      const token = rawArgs[index]
      const taken = token === undefined ? 0 : leadingOption(rawArgs, index)
      if (taken > 0) {
        leading.push(...rawArgs.slice(index, index + taken))
        index += taken
        continue
      }
      if (token === undefined || token.startsWith('-')) {
        if (path.length === 0 && token !== undefined && VERSION_FLAGS.has(token)) return await writeStdout(`${version}\n`)
        if (token !== undefined && HELP.has(token)) return await writeStdout(await (await help()).renderHelp(command, path))
        const where = path.length === 0 ? '' : `${path.join(' ')}: `
        if (token !== undefined)
          throw new McpxError('USAGE', `${where}unknown option ${token.split('=')[0]}; see \`${['mcpx', ...path].join(' ')} --help\``, {
            flag: token.split('=')[0],
          })
        // A command group alone (`mcpx`, `mcpx daemon`) is a usage error: help on stderr, exit 2.
        const { renderHelp, terminalColumns } = await help()
        process.stderr.write(await renderHelp(command, path, terminalColumns(process.stderr)))
        if (leading.length > 0) throw new McpxError('USAGE', `${leading[0]} names no command; see \`mcpx --help\``)
        return setExitCode(EXIT.USAGE)
      }
      const next = subCommands[token]
      if (next === undefined) {
        const hint = suggest(
          token,
          Object.keys(subCommands).filter((n) => n !== 'sandbox-child'),
        )
        throw new McpxError(
          'USAGE',
          `unknown command "${[...path, token].join(' ')}"${hint.length ? ` (did you mean ${hint.map((h) => [...path, h].join(' ')).join(', ')}?)` : ''}; see \`mcpx ${path.join(' ')}${path.length ? ' ' : ''}--help\``,
          {
            command: token,
            suggestions: hint,
          },
        )
      }
      command = (await resolve(next as CommandDef<any>)) as CommandDef<any>
      path.push(token)
      index += 1
    }
    const rest = [...leading, ...rawArgs.slice(index)]
    const restDashes = rest.indexOf('--')
    if ((restDashes >= 0 ? rest.slice(0, restDashes) : rest).some((a) => HELP.has(a)))
      return await writeStdout(await (await help()).renderHelp(command, path))
    // Only a command that runs may use process.stdout; --version, --help and a command that writes
    // only with writeStdout (which ends quietly on EPIPE itself) never create it (cli/output.ts).
    if (usesProcessStdout(command)) quietOnBrokenPipe()
    const args = parseCommandLine(rest, ((await resolve(command.args)) ?? {}) as Record<string, any>, path.join(' '))
    const context = { rawArgs: [...rest], args, cmd: command, data: undefined }
    await command.setup?.(context as never)
    try {
      await command.run?.(context as never)
    } finally {
      await command.cleanup?.(context as never)
    }
  } catch (error) {
    reportError(error, { json })
  }
}

/**
 * How many words the option at `index` takes when it may stand before the command (the options of
 * cli/args.ts commonArgs, which every command that reads a config or prints takes): 2 for `--config
 * FILE`, 1 for `--config=FILE` and the switches, 0 for anything else. A command that does not take
 * one refuses it when its own line is parsed, naming it.
 */
function leadingOption(rawArgs: readonly string[], index: number): number {
  const token = rawArgs[index]!
  if (COMMON_SWITCHES.has(token) || token.startsWith('--config=')) return 1
  if (token !== '--config') return 0
  const value = rawArgs[index + 1]
  if (value === undefined || value.startsWith('-')) throw new McpxError('USAGE', '--config needs a value', { flag: 'config' })
  return 2
}

/** `mcpx tools | head -1`: a reader that went away ends the command quietly (exit 0). */
function quietOnBrokenPipe(): void {
  const onError = (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.OK)
    throw error
  }
  process.stdout.on('error', onError)
}

/** The help renderer is loaded only for help: `--version` and commands do without it. */
const help = () => import('./help.ts')

async function resolve<T>(value: T | (() => T | Promise<T>) | Promise<T> | undefined): Promise<T | undefined> {
  return typeof value === 'function' ? await (value as () => T | Promise<T>)() : await value
}
