/**
 * An elicitation as a terminal form (2025-11-25 client/elicitation.mdx, form mode): one question per
 * field of the requested schema — title, description, `*` for required, choices for enums, the
 * default in brackets (Enter takes it). First the user chooses to answer or decline; Ctrl-C (or the
 * end of input) cancels. Prompts go to stderr: stdout carries only the call's result. An answer
 * given ahead (--answers) is held to the same form (answerProblems), as the spec asks of clients.
 */
import { createInterface } from 'node:readline'

type JsonObject = Record<string, unknown>

/** Both ends of the conversation are a terminal. */
export function interactive(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true
}

/** Ask lines until done; `ask` resolves undefined once the user cancelled (Ctrl-C or end of input). */
async function conversation<T>(run: (ask: (question: string) => Promise<string | undefined>) => Promise<T>): Promise<T> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true })
  let cancelled = false
  const waiting = new Set<(line: string | undefined) => void>()
  const cancel = () => {
    // Ctrl-C or end of input mid-question: end that prompt's line, so what follows starts on its own.
    if (waiting.size > 0) process.stderr.write('\n')
    cancelled = true
    for (const settle of waiting) settle(undefined)
  }
  rl.on('SIGINT', cancel)
  rl.on('close', cancel)
  const ask = (question: string) =>
    cancelled
      ? Promise.resolve(undefined)
      : new Promise<string | undefined>((resolve) => {
          const settle = (line: string | undefined) => {
            waiting.delete(settle)
            resolve(line)
          }
          waiting.add(settle)
          rl.question(question, (line) => settle(line))
        })
  try {
    return await run(ask)
  } finally {
    rl.removeListener('close', cancel)
    rl.close()
    process.stdin.pause()
  }
}

export function askYesNo(question: string): Promise<boolean | undefined> {
  return conversation(async (ask) => {
    const line = await ask(question)
    return line === undefined ? undefined : /^y(es)?$/i.test(line.trim())
  })
}

export function askForm(schema: JsonObject): Promise<JsonObject> {
  return conversation(async (ask) => {
    const first = await ask('Answer now? [Y]es / [d]ecline (Ctrl-C cancels) ')
    if (first === undefined) return { action: 'cancel' }
    if (/^d(ecline)?$/i.test(first.trim())) return { action: 'decline' }
    const properties = (schema.properties ?? {}) as Record<string, JsonObject>
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : [])
    const content: JsonObject = {}
    for (const [name, field] of Object.entries(properties)) {
      for (;;) {
        const line = await ask(prompt(name, field, required.has(name)))
        if (line === undefined) return { action: 'cancel' }
        const parsed = parseField(line.trim(), field)
        if (parsed.ok) {
          if (parsed.value !== undefined) content[name] = parsed.value
          else if (field.default !== undefined) content[name] = field.default
          else if (required.has(name)) {
            process.stderr.write('  (required)\n')
            continue
          }
          break
        }
        process.stderr.write(`  ${parsed.problem}\n`)
      }
    }
    return { action: 'accept', content }
  })
}

function choices(field: JsonObject): { value: unknown; title: string }[] | undefined {
  const items = (field.type === 'array' ? field.items : field) as JsonObject | undefined
  if (items === undefined) return undefined
  if (Array.isArray(items.enum)) {
    const names = Array.isArray(items.enumNames) ? (items.enumNames as string[]) : []
    return (items.enum as unknown[]).map((value, i) => ({ value, title: names[i] ?? String(value) }))
  }
  const variants = (items.oneOf ?? items.anyOf) as JsonObject[] | undefined
  if (Array.isArray(variants) && variants.every((v) => 'const' in v))
    return variants.map((v) => ({ value: v.const, title: String(v.title ?? v.const) }))
  return undefined
}

function prompt(name: string, field: JsonObject, required: boolean): string {
  const label = `${String(field.title ?? name)}${required ? ' *' : ''}`
  const description = typeof field.description === 'string' ? ` — ${field.description}` : ''
  const options = choices(field)
  const list = options ? `\n${options.map((o, i) => `    ${i + 1}) ${o.title}`).join('\n')}\n  ` : ''
  const kind = field.type === 'array' ? ' (comma-separated)' : field.type === 'boolean' ? ' (y/n)' : ''
  const fallback = field.default !== undefined ? ` [${String(field.default)}]` : ''
  return `  ${label}${description}${list}${kind}${fallback}: `
}

type Parsed = { ok: true; value: unknown } | { ok: false; problem: string }

function parseField(text: string, field: JsonObject): Parsed {
  if (text === '') return { ok: true, value: undefined }
  const options = choices(field)
  const pick = (word: string): Parsed => {
    if (!options) return { ok: true, value: word }
    const index = Number(word)
    const byIndex = Number.isInteger(index) ? options[index - 1] : undefined
    const match = byIndex ?? options.find((o) => String(o.value) === word || o.title === word)
    return match ? { ok: true, value: match.value } : { ok: false, problem: `choose one of: ${options.map((o) => o.title).join(', ')}` }
  }
  switch (field.type) {
    case 'boolean':
      if (/^(y|yes|true)$/i.test(text)) return { ok: true, value: true }
      if (/^(n|no|false)$/i.test(text)) return { ok: true, value: false }
      return { ok: false, problem: 'answer y or n' }
    case 'integer':
    case 'number': {
      const n = Number(text)
      if (!Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n)))
        return { ok: false, problem: `a${field.type === 'integer' ? 'n integer' : ' number'}, please` }
      return { ok: true, value: n }
    }
    case 'array': {
      const values: unknown[] = []
      for (const word of text
        .split(',')
        .map((w) => w.trim())
        .filter(Boolean)) {
        const one = pick(word)
        if (!one.ok) return one
        values.push(one.value)
      }
      return { ok: true, value: values }
    }
    default:
      return pick(text)
  }
}

/**
 * Why `content` does not fit the form `schema` asks for (2025-11-25 client/elicitation.mdx: clients
 * SHOULD validate responses against the requested schema): a required field missing, a field the
 * form does not have, a value of the wrong type or outside the choices, bounds and lengths the
 * field declares. One phrase per problem, naming the field; empty when it fits.
 */
export function answerProblems(schema: JsonObject, content: JsonObject): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : []
  const problems = required.filter((name) => content[name] === undefined).map((name) => `${name}: required`)
  for (const [name, value] of Object.entries(content)) {
    const field = properties[name]
    if (field === undefined) problems.push(`${name}: the form has no such field`)
    else {
      const problem = valueProblem(value, field)
      if (problem !== undefined) problems.push(`${name}: ${problem}, got ${JSON.stringify(value)}`)
    }
  }
  return problems
}

function valueProblem(value: unknown, field: JsonObject): string | undefined {
  const options = choices(field)
  const allowed = (one: unknown) => options === undefined || options.some((o) => o.value === one)
  switch (field.type) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'true or false'
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || (field.type === 'integer' && !Number.isInteger(value)))
        return `a${field.type === 'integer' ? 'n integer' : ' number'}`
      if (typeof field.minimum === 'number' && value < field.minimum) return `at least ${field.minimum}`
      if (typeof field.maximum === 'number' && value > field.maximum) return `at most ${field.maximum}`
      return undefined
    }
    case 'array':
      if (!Array.isArray(value) || !value.every(allowed))
        return options ? `a list of: ${options.map((o) => String(o.value)).join(', ')}` : 'a list'
      return undefined
    case 'string': {
      if (typeof value !== 'string') return 'a string'
      if (!allowed(value)) return `one of: ${options!.map((o) => String(o.value)).join(', ')}`
      if (typeof field.minLength === 'number' && value.length < field.minLength) return `at least ${field.minLength} characters`
      if (typeof field.maxLength === 'number' && value.length > field.maxLength) return `at most ${field.maxLength} characters`
      return undefined
    }
    default:
      return allowed(value) ? undefined : `one of: ${options!.map((o) => String(o.value)).join(', ')}`
  }
}
