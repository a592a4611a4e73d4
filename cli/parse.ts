/**
 * Strict command-line parsing for every mcpx command (citty's parser ignores unknown flags and
 * reads flags after `--`). Flags come only before `--`; everything after it belongs to the command
 * being wrapped (`replay F --against -- cmd --print`). An unknown flag, a string flag without a
 * value, a repeated flag or a word no positional takes is a USAGE error (exit 2) naming it, with
 * "did you mean" for flags.
 */
import type { ArgsDef } from 'citty'
import { McpxError } from '../lib/errors/index.ts'
import { suggest } from '../lib/gateway/index.ts'

/** String flags marked here may be given several times; their value is then a string[]. */
const REPEATABLE = new WeakSet<object>()

/** Mark a string flag repeatable (`--root A --root B`). */
export function repeatable<T extends object>(def: T): T {
  REPEATABLE.add(def)
  return def
}

/** A positional marked here is followed by any number of words (`call T k=v…`); others take one each. */
const VARIADIC = new WeakSet<object>()

export function variadic<T extends object>(def: T): T {
  VARIADIC.add(def)
  return def
}

/** String flags marked here may stand last before `--`, naming the command after it (`--against -- cmd`). */
const COMMAND_AFTER_DASHES = new WeakSet<object>()

export function orCommandAfterDashes<T extends object>(def: T): T {
  COMMAND_AFTER_DASHES.add(def)
  return def
}

/**
 * Commands whose args are marked here read the command line after `--` (`probe -- cmd`, `record F
 * -- cmd`, `completion names -- words`); any other command refuses words there.
 */
const RUNS_COMMAND_AFTER_DASHES = new WeakSet<object>()

export function runsCommandAfterDashes<const T extends ArgsDef>(args: T): T {
  RUNS_COMMAND_AFTER_DASHES.add(args)
  return args
}

export interface ParsedArgs {
  /** Every positional before `--`, then every token after it (citty's convention). */
  readonly _: string[]
  /** The tokens after `--` (empty when there is none). */
  readonly rest: string[]
  readonly [name: string]: unknown
}

interface FlagDef {
  readonly name: string
  readonly type: string
  readonly many: boolean
  readonly command: boolean
}

export function parseCommandLine(rawArgs: readonly string[], argsDef: ArgsDef, command: string): ParsedArgs {
  const dashes = rawArgs.indexOf('--')
  const before = dashes >= 0 ? rawArgs.slice(0, dashes) : [...rawArgs]
  const rest = dashes >= 0 ? rawArgs.slice(dashes + 1) : []
  const flags = new Map<string, FlagDef>()
  const positionals: { name: string; required: boolean; def: Record<string, unknown> }[] = []
  const out: Record<string, unknown> = {}
  for (const [name, raw] of Object.entries(argsDef)) {
    const def = raw as Record<string, unknown>
    if (def.type === 'positional') {
      positionals.push({ name, required: def.required !== false && def.default === undefined, def })
      continue
    }
    const flag: FlagDef = { name, type: String(def.type ?? 'string'), many: REPEATABLE.has(raw), command: COMMAND_AFTER_DASHES.has(raw) }
    flags.set(name, flag)
    for (const alias of [def.alias].flat()) if (typeof alias === 'string') flags.set(alias, flag)
    if (def.default !== undefined) out[name] = def.default
  }
  const seen = new Set<string>()
  // A flag that names the command after `--` was given (`replay F --against -- cmd`).
  let commandFlagGiven = false
  const loose: string[] = []
  for (let i = 0; i < before.length; i++) {
    const token = before[i]!
    if (!isFlag(token)) {
      loose.push(token)
      continue
    }
    const body = token.replace(/^--?/, '')
    const eq = body.indexOf('=')
    const spelled = eq > 0 ? body.slice(0, eq) : body
    let inline: string | undefined = eq > 0 ? body.slice(eq + 1) : undefined
    let flag = flags.get(spelled)
    let negated = false
    if (flag === undefined && spelled.startsWith('no-') && flags.get(spelled.slice(3))?.type === 'boolean') {
      flag = flags.get(spelled.slice(3))
      negated = true
    }
    if (flag === undefined) throw unknownFlag(token, spelled, [...new Set([...flags.values()].map((f) => f.name))], command)
    if (seen.has(flag.name) && !flag.many)
      throw new McpxError('USAGE', `${command}: --${flag.name} given more than once`, { flag: flag.name })
    seen.add(flag.name)
    if (flag.command) commandFlagGiven = true
    if (flag.type === 'boolean') {
      if (inline !== undefined && inline !== 'true' && inline !== 'false')
        throw new McpxError('USAGE', `${command}: --${flag.name} is a switch; it takes no value (got "${inline}")`, { flag: flag.name })
      out[flag.name] = negated ? false : inline !== 'false'
      continue
    }
    if (inline === undefined) {
      const next = before[i + 1]
      if (next === undefined && flag.command && dashes >= 0) {
        out[flag.name] = ''
        continue
      }
      if (next === undefined || (isFlag(next) && !/^-\d/.test(next))) {
        throw new McpxError('USAGE', `${command}: --${flag.name} needs a value`, { flag: flag.name })
      }
      inline = next
      i++
    }
    out[flag.name] = flag.many
      ? [...((seen.has(flag.name) && Array.isArray(out[flag.name]) ? out[flag.name] : []) as string[]), inline]
      : inline
  }
  const queue = [...loose]
  for (const positional of positionals) {
    const value = queue.shift()
    if (value !== undefined) out[positional.name] = value
    else if (positional.required)
      throw new McpxError('USAGE', `${command}: missing ${positional.name.toUpperCase()} (see \`mcpx ${command} --help\`)`, {
        argument: positional.name,
      })
    else if (positional.def.default !== undefined) out[positional.name] = positional.def.default
  }
  // A word no positional takes is a mistake (`mcpx tools a b`, `mcpx settings x`), not something to drop.
  if (queue.length > 0 && !positionals.some((p) => VARIADIC.has(p.def))) {
    throw new McpxError('USAGE', `${command}: unexpected argument "${queue[0]}" (see \`mcpx ${command} --help\`)`, { argument: queue[0] })
  }
  const takesRest = positionals.some((p) => VARIADIC.has(p.def)) || RUNS_COMMAND_AFTER_DASHES.has(argsDef) || commandFlagGiven
  if (rest.length > 0 && !takesRest) throw strayAfterDashes(rest, flags, command)
  return { ...out, _: [...loose, ...rest], rest } as ParsedArgs
}

/**
 * Words after `--` that the command would never read (`mcpx tools -- npx server`): refused, not
 * dropped, since running on without them answers a question the user did not ask. A command that
 * takes an ad-hoc stdio server says how to name one.
 */
function strayAfterDashes(rest: readonly string[], flags: ReadonlyMap<string, FlagDef>, command: string): McpxError {
  const stdio =
    flags.get('stdio')?.type === 'string' ? ` (a server run as a command is named with --stdio ${JSON.stringify(rest.join(' '))})` : ''
  return new McpxError('USAGE', `${command}: takes nothing after "--", got "${rest[0]}"${stdio}; see \`mcpx ${command} --help\``, {
    argument: rest[0],
  })
}

/** `-` alone (stdin) and negative numbers are values, not flags. */
function isFlag(token: string): boolean {
  return token.startsWith('-') && token !== '-' && !/^-\d/.test(token)
}

function unknownFlag(token: string, spelled: string, names: string[], command: string): McpxError {
  const hint = suggest(spelled, names)
  return new McpxError(
    'USAGE',
    `${command}: unknown option ${token.split('=')[0]}${hint.length ? ` (did you mean ${hint.map((h) => `--${h}`).join(', ')}?)` : ''}`,
    {
      flag: spelled,
      suggestions: hint.map((h) => `--${h}`),
    },
  )
}
