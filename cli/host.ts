/**
 * The CLI as the host of the calls it makes (2025-11-25 client/roots.mdx, client/elicitation.mdx,
 * client/sampling.mdx): roots are the working directory plus each --root; an elicitation is a form
 * prompt on a terminal, an entry of --answers, or declined with a message saying how to answer;
 * sampling runs setting samplingCommand (request JSON on stdin, result JSON on stdout), and without
 * one the broker refuses it (-32021). Questions reach the CLI as `call.input` events on the
 * daemon's feed and are answered with POST /v1/answer (lib/daemon/host-questions.ts).
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { DaemonClient } from '../lib/daemon/index.ts'
import { McpxError } from '../lib/errors/index.ts'
import type { QuestionKind } from '../lib/gateway/index.ts'
import type { Settings } from '../lib/settings/index.ts'
import { logLine, progressLine, slowNotice } from './progress.ts'
import { stderrIsTty } from './tty.ts'

type JsonObject = Record<string, unknown>

export interface HostOptions {
  readonly roots: readonly string[]
  /** --answers FILE|- : elicitation answers, used in order (a content object or a full ElicitResult). */
  readonly answers?: JsonObject[]
  /** --open: open a URL-mode elicitation's URL after consent. */
  readonly open?: boolean
  readonly samplingCommand: string
  readonly label: string
}

export const hostArgs = {
  root: {
    type: 'string',
    description: 'Also grant this directory as a root (repeatable; the working directory always is)',
    valueHint: 'dir',
  },
  answers: {
    type: 'string',
    description: 'Answers to elicitation requests as JSON (a file, or - for stdin): an object, or an array used in order',
    valueHint: 'file',
  },
  open: { type: 'boolean', description: 'URL-mode elicitation: open the URL in a browser after you consent' },
} as const

/** The `host` parameter of /v1 call/request: what this CLI can answer. */
export function hostParams(options: HostOptions): { roots: string[]; elicit: true; sample: boolean } {
  return { roots: [...options.roots], elicit: true, sample: options.samplingCommand !== '' }
}

/** The kinds of upstream question the CLI answers, declared on its own (ad-hoc) connections. */
export function hostQuestions(options: HostOptions): QuestionKind[] {
  return options.samplingCommand !== '' ? ['elicit', 'sample', 'listRoots'] : ['elicit', 'listRoots']
}

export function rootUris(cwd: string, extra: string | string[] | undefined): string[] {
  const dirs = [cwd, ...[extra ?? []].flat()]
  // Bun's own converter, the same URLs as node:url's: that module is not loaded on a warm call's path.
  return [...new Set(dirs.map((dir) => Bun.pathToFileURL(resolve(cwd, dir)).href))]
}

export function readAnswers(source: string | undefined, stdinText: () => Promise<string>): Promise<JsonObject[] | undefined> {
  if (source === undefined) return Promise.resolve(undefined)
  const load = source === '-' ? stdinText() : Promise.resolve(readText(source))
  return load.then((text) => {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      throw new McpxError('USAGE', `--answers ${source} is not valid JSON: ${(error as Error).message}`)
    }
    const list = Array.isArray(value) ? value : [value]
    if (!list.every((entry) => entry !== null && typeof entry === 'object' && !Array.isArray(entry)))
      throw new McpxError('USAGE', `--answers ${source} must be a JSON object or an array of objects`)
    return list as JsonObject[]
  })
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new McpxError('USAGE', `cannot read --answers file ${path}: ${(error as Error).message}`, { path })
  }
}

export interface FollowOptions {
  /** Progress lines on stderr; undefined: when stderr is a terminal (asked only once a line comes). */
  readonly showProgress?: boolean
  readonly host: HostOptions
  readonly settings: Settings
  /** Names the call in progress lines (`server.tool`). */
  readonly label: string
}

/**
 * Wait until a follower has read its last event, or at most `ms`: the timer is unref'd, so a
 * command whose follower is done exits at once instead of when the drain would have ended.
 */
export function drainFeed(reading: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([reading, new Promise((resolve) => setTimeout(resolve, ms).unref?.())])
}

/**
 * Follow one call's events: progress lines, questions to answer, a slow notice. Ends when the
 * daemon's `call` event for this id arrives (published before the answer) or the feed breaks.
 */
export function followCall(client: DaemonClient, options: FollowOptions): { id: string; stop(): Promise<void> } {
  const abort = new AbortController()
  const follower = callFollower(client, options)
  const reading = (async () => {
    for await (const event of client.events({ lastEventId: 0, signal: abort.signal })) {
      const data = event.data as JsonObject & { progressId?: string }
      if (data.progressId !== follower.id) continue
      if (event.type === 'call') return
      await follower.handle(event.type, data)
    }
  })().catch(() => {})
  return {
    id: follower.id,
    async stop() {
      follower.pause()
      await drainFeed(reading, options.settings.cliEventDrainMs)
      abort.abort()
      follower.stop()
    },
  }
}

/**
 * What one call shows and answers while it runs, wherever its events come from: the feed
 * (followCall) or the call's own streamed answer (`DaemonClient.stream`, one round trip).
 */
export function callFollower(
  client: DaemonClient,
  options: FollowOptions,
): { id: string; handle(type: string, data: JsonObject): Promise<void>; pause(): void; stop(): void } {
  const id = crypto.randomUUID()
  const answers = [...(options.host.answers ?? [])]
  const notice = slowNotice(`waiting for ${options.label}`, options.settings.cliSlowNoticeMs)
  let shown = false
  return {
    id,
    async handle(type, raw) {
      const data = raw as { progress?: number; total?: number; message?: string; inputId?: string; kind?: string; params?: JsonObject }
      if (type === 'call.input') {
        notice.pause()
        if (shown && stderrIsTty()) process.stderr.write('\r\x1b[K')
        const reply = await answer(data.kind === 'sample' ? 'sample' : 'elicit', data.params ?? {}, options.host, answers).then(
          (result) => ({ result }),
          (error: unknown) => ({ error: { code: -32603, message: error instanceof Error ? error.message : String(error) } }),
        )
        await client.request('answer', { inputId: data.inputId, ...reply }).catch(() => {})
        return
      }
      if ((type !== 'call.progress' && type !== 'call.log') || !(options.showProgress ?? stderrIsTty())) return
      notice.stop()
      if (type === 'call.log') {
        // A log line stays: it goes above the progress line (which the next update draws again).
        process.stderr.write(`${shown && stderrIsTty() ? '\r\x1b[K' : ''}${logLine(options.label, raw)}\n`)
        shown = false
        return
      }
      const line = progressLine(options.label, data)
      process.stderr.write(stderrIsTty() ? `\r\x1b[K${line}` : `${line}\n`)
      shown = true
    },
    pause: () => notice.stop(),
    stop() {
      notice.stop()
      if (shown && stderrIsTty()) process.stderr.write('\r\x1b[K')
    },
  }
}

/** One question from an upstream, answered as this CLI host answers (also used without a daemon). */
export async function answer(kind: 'elicit' | 'sample', params: JsonObject, host: HostOptions, answers: JsonObject[]): Promise<JsonObject> {
  if (kind === 'sample') return sample(params, host)
  const message = String(params.message ?? '')
  const url = params.mode === 'url' ? String(params.url ?? '') : undefined
  const given = answers.shift()
  if (given !== undefined) {
    const reply = typeof given.action === 'string' ? given : { action: 'accept', ...(url === undefined && { content: given }) }
    if (url !== undefined || reply.action !== 'accept' || typeof reply.content !== 'object' || reply.content === null) return reply
    // An answer given ahead fits the form or is not sent: the upstream hears a decline, the user why.
    const problems = (await import('./elicit-form.ts')).answerProblems(
      (params.requestedSchema ?? {}) as JsonObject,
      reply.content as JsonObject,
    )
    if (problems.length === 0) return reply
    process.stderr.write(
      `mcpx: the --answers entry for ${host.label}'s ${JSON.stringify(message)} does not fit its form (${problems.join('; ')}); declined\n`,
    )
    return { action: 'decline' }
  }
  // The form prompt (node:readline) is loaded only when a question comes to a terminal.
  const form = await import('./elicit-form.ts')
  if (form.interactive()) {
    process.stderr.write(`${host.label} asks: ${message}\n`)
    if (url !== undefined) return consentToUrl(url, host)
    return form.askForm((params.requestedSchema ?? {}) as JsonObject)
  }
  process.stderr.write(
    `mcpx: ${host.label} asked${url !== undefined ? ` to open ${url}` : ''}: ${JSON.stringify(message)} — declined (no terminal to ask on; answer with --answers FILE)\n`,
  )
  return { action: 'decline' }
}

/** 2025-11-25 client/elicitation.mdx (URL mode): show the full URL, open it only after consent. */
async function consentToUrl(url: string, host: HostOptions): Promise<JsonObject> {
  process.stderr.write(`  URL: ${url}\n`)
  const yes = await (await import('./elicit-form.ts')).askYesNo(
    host.open ? 'Open this URL in your browser? [y/N] ' : 'Consent to visit this URL (open it yourself)? [y/N] ',
  )
  if (yes === undefined) return { action: 'cancel' }
  if (!yes) return { action: 'decline' }
  if (host.open) {
    const opener = process.platform === 'darwin' ? 'open' : 'xdg-open'
    try {
      Bun.spawn([opener, url], { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' }).unref()
    } catch {
      process.stderr.write(`mcpx: could not run ${opener}; open the URL yourself\n`)
    }
  }
  return { action: 'accept' }
}

async function sample(params: JsonObject, host: HostOptions): Promise<JsonObject> {
  const proc = Bun.spawn(['sh', '-c', host.samplingCommand], {
    stdin: new Blob([JSON.stringify(params)]),
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const [text, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
  if (code !== 0) throw new Error(`samplingCommand exited ${code}`)
  let result: unknown
  try {
    result = JSON.parse(text)
  } catch {
    throw new Error('samplingCommand did not print a JSON CreateMessageResult')
  }
  const missing = createMessageProblem(result)
  if (missing !== undefined) throw new Error(`samplingCommand printed no CreateMessageResult: ${missing}`)
  return result as JsonObject
}

/**
 * What a sampling answer lacks of a CreateMessageResult (every revision's schema.json: `role`
 * user or assistant, `content` a block or, from 2025-11-25, a list of them, each with a `type`, and
 * the `model` that answered), so the upstream is told plainly rather than handed a shape it refuses.
 */
function createMessageProblem(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return 'not a JSON object'
  const { role, content, model } = result as JsonObject
  const blocks = Array.isArray(content) ? content : [content]
  const problems = [
    role === 'user' || role === 'assistant' ? undefined : '`role` must be "user" or "assistant"',
    blocks.length > 0 && blocks.every((b) => typeof b === 'object' && b !== null && typeof (b as JsonObject).type === 'string')
      ? undefined
      : '`content` must be a content block with a `type` (or a list of them)',
    typeof model === 'string' ? undefined : '`model` must name the model that answered',
  ].filter((problem) => problem !== undefined)
  return problems.length === 0 ? undefined : problems.join('; ')
}
