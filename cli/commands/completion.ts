/**
 * `mcpx completion bash|zsh|fish`: a completion script to source. The script asks this mcpx
 * (`mcpx completion names -- <words…>`) for candidates: commands, flags, configured server names
 * (from the config, no daemon needed) and, after `server.`, that server's tools from the daemon's
 * catalog.
 */
import { defineCommand } from 'citty'
import type { Catalog } from '../../lib/daemon/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { COMMON_SWITCHES, commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../configured-context.ts'
import { rootCommand } from '../dispatch.ts'
import { runsCommandAfterDashes } from '../parse.ts'
import { daemonClient } from './daemon.ts'

const SHELLS = ['bash', 'zsh', 'fish'] as const
const SERVER_FIRST = new Set(['call', 'types'])
const SERVER_ARG = new Set(['tools', 'servers', 'resource', 'prompt', 'tasks', 'auth'])

export default defineCommand({
  meta: { name: 'completion', description: 'Print a shell completion script: mcpx completion bash|zsh|fish (source it)' },
  // `names -- <words…>`: the command line being completed comes after `--`.
  args: runsCommandAfterDashes({
    shell: { type: 'positional', description: 'bash, zsh or fish', required: true },
    config: commonArgs.config,
  }),
  async run({ args }) {
    if (args.shell === 'names') {
      // The line being completed may name its config (`mcpx --config team.json call t<TAB>`): its servers are the candidates.
      const { words, config } = withoutCommonOptions((args._ as string[]).slice(1))
      const named = { config: config ?? args.config, quiet: true }
      const found = await candidates(loadConfiguredContext(named), named, words)
      return void process.stdout.write(found.map((c) => `${c}\n`).join(''))
    }
    const ctx = loadConfiguredContext({ ...args, quiet: true })
    const self = ctx.self.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ')
    if (!(SHELLS as readonly string[]).includes(args.shell))
      throw new McpxError('USAGE', `completion: unknown shell "${args.shell}" (bash, zsh or fish)`)
    // fish quotes differently: inside '…' only \\ and \' are escapes.
    const fishSelf = ctx.self.map((part) => `'${part.replace(/[\\']/g, '\\$&')}'`).join(' ')
    process.stdout.write(script(args.shell as (typeof SHELLS)[number], args.shell === 'fish' ? fishSelf : self))
  },
})

function script(shell: (typeof SHELLS)[number], self: string): string {
  const bash = `_mcpx() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local IFS=$'\\n'
  COMPREPLY=($(compgen -W "$(${self} completion names -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)" -- "$cur"))
  if [[ \${#COMPREPLY[@]} -eq 1 && "\${COMPREPLY[0]}" == *. ]]; then compopt -o nospace 2>/dev/null; fi
}
complete -o default -F _mcpx mcpx
`
  if (shell === 'bash') return bash
  if (shell === 'zsh') return `autoload -U +X bashcompinit && bashcompinit\n${bash}`
  // A function, so the binary's path keeps its own quoting (a path with spaces or quotes still works).
  return `function __mcpx_complete\n  ${self} completion names -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null\nend\ncomplete -c mcpx -f -a '(__mcpx_complete)'\n`
}

/**
 * The words of the line being completed without the options every command takes (cli/args.ts
 * commonArgs, before or after the command), and the config one of them names. The last word, the
 * one being typed, is kept whatever it is.
 */
function withoutCommonOptions(all: readonly string[]): { words: string[]; config: string | undefined } {
  const words: string[] = []
  let config: string | undefined
  const last = all.length - 1
  for (let i = 0; i < last; i++) {
    const word = all[i]!
    if (word === '--config' && i + 1 < last) config = all[++i]
    else if (word.startsWith('--config=')) config = word.slice('--config='.length)
    else if (!COMMON_SWITCHES.has(word)) words.push(word)
  }
  if (last >= 0) words.push(all[last]!)
  return { words, config }
}

/** Candidates for the last word, given the words after `mcpx` (the last one being typed). */
async function candidates(ctx: ReturnType<typeof loadConfiguredContext>, args: { config?: string }, words: string[]): Promise<string[]> {
  const current = words.at(-1) ?? ''
  const before = words.slice(0, -1)
  // Not an import of main.ts: its top-level await is still running this command.
  const commands = Object.keys(rootCommand().subCommands as Record<string, unknown>).filter(
    (name) => name !== 'sandbox-child' && name !== 'demo-server',
  )
  if (before.length === 0) return commands.filter((c) => c.startsWith(current))
  const command = before[0]!
  const servers = Object.keys(ctx.config.servers)
  if (SERVER_FIRST.has(command) && before.length === 1) {
    const dot = current.indexOf('.')
    if (dot < 0) return servers.map((s) => `${s}.`).filter((s) => s.startsWith(current))
    const server = current.slice(0, dot)
    if (!servers.includes(server)) return []
    const catalog = await daemonClient(ctx, args, true)
      .request<Catalog>('catalog', { name: server })
      .catch(() => undefined)
    return (catalog?.tools ?? []).map((t) => `${server}.${String(t.name)}`).filter((name) => name.startsWith(current))
  }
  if (SERVER_ARG.has(command)) return servers.filter((s) => s.startsWith(current))
  return []
}
