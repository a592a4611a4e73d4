/**
 * An ad-hoc target (a URL, or --stdio "command"): connected directly through the gateway's own
 * Upstream (era probe, OAuth from stored credentials), without the config or the daemon. Its own
 * module so a daemon call never loads the gateway or OAuth (cli/target.ts imports it on demand).
 */
import { createUpstreamAuth } from '../lib/auth/index.ts'
import type { ServerConfig } from '../lib/config/index.ts'
import { CLI_SAMPLING_REFUSAL } from '../lib/daemon/index.ts'
import { type DownstreamAsker, type QuestionKind, Upstream } from '../lib/gateway/index.ts'
import { type Revision, shapeResult, type JsonObject, missingCapability } from '../lib/wire/index.ts'
import type { CliContext } from './context.ts'
import { type HostOptions, answer, hostQuestions } from './host.ts'
import { logLine, progressLine, slowNotice, withNotice } from './progress.ts'
import type { ServerSession } from './target.ts'
import { stderrIsTty } from './tty.ts'

/**
 * The gateway's Upstream for a connection the CLI makes itself (an ad-hoc target, `call --record`): the CLI's
 * declarations, `${VAR}`s from this command's environment, and stored OAuth unless the config sends its own
 * Authorization header.
 */
export function cliUpstream(ctx: CliContext, config: ServerConfig, host: HostOptions): Upstream {
  return new Upstream(config, {
    settings: ctx.settings,
    emit: () => {},
    ...cliDeclares(host),
    connectOptions: (entry) => {
      const target = entry.target
      if (target.kind === 'stdio') return { parentEnv: ctx.env }
      if (!target.oauth && Object.keys(target.headers).some((name) => name.toLowerCase() === 'authorization')) return {}
      return {
        auth: createUpstreamAuth({
          serverUrl: target.url,
          settings: ctx.settings,
          home: ctx.paths.home,
          ...(target.oauth !== undefined && { config: target.oauth }),
          interactive: false,
        }),
      }
    },
  })
}

/** An ad-hoc server: one Upstream of our own (the gateway's connection logic), closed at the end. */
export function directSession(ctx: CliContext, config: ServerConfig, host: HostOptions): ServerSession {
  const upstream = cliUpstream(ctx, config, host)
  const asker = cliAsker(host)
  const delay = ctx.settings.cliSlowNoticeMs
  return {
    label: host.label,
    adHoc: true,
    catalog: () => withNotice(`connecting to ${host.label}`, delay, () => upstream.broker.run(asker, () => upstream.catalog())),
    async call(tool, args, options) {
      const notice = slowNotice(`waiting for ${host.label}`, delay)
      const tty = process.stderr.isTTY === true
      // A question put to the user (a form, a URL consent) must not be drawn over by the spinner.
      const asking: typeof asker = { ...asker, elicit: (params, signal, key) => (notice.pause(), asker.elicit!(params, signal, key)) }
      return upstream
        .call(tool, args, {
          asker: asking,
          ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
          ...(options.task && { runAsTask: true }),
          ...((options.showProgress ?? stderrIsTty()) && {
            onProgress: (update) => {
              notice.stop()
              const line = progressLine(`${host.label} ${tool}`, update)
              process.stderr.write(tty ? `\r\x1b[K${line}` : `${line}\n`)
            },
            onLog: (params) => {
              notice.stop()
              process.stderr.write(`${tty ? '\r\x1b[K' : ''}${logLine(`${host.label} ${tool}`, params)}\n`)
            },
          }),
        })
        .then((result) => shapedFor(upstream, 'tools/call', result))
        .finally(() => notice.stop())
    },
    request: async (method, params, options = {}) =>
      shapedFor(
        upstream,
        method,
        await upstream.request(method, params, { asker, ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }) }),
      ),
    close: () => upstream.close(),
  }
}

/** As the spec shapes a result for the revision the upstream speaks (no resultType for legacy ones), like /v1 does. */
export function shapedFor(upstream: Upstream, method: string, result: JsonObject): JsonObject {
  const revision = upstream.status().revision
  return revision === undefined ? result : shapeResult(revision as Revision, method, result)
}

/** A sampling question without samplingCommand: refused, naming what is missing (2025-11-25 client/sampling.mdx). */
export function refuseSampling(): Promise<never> {
  return Promise.reject(missingCapability({ sampling: {} }, CLI_SAMPLING_REFUSAL))
}

/**
 * What a connection the CLI opens itself declares upstream: what this CLI answers — sampling only
 * when setting samplingCommand names a program — and no MCP Apps extension (a terminal renders no app).
 */
export function cliDeclares(host: HostOptions): { questions: QuestionKind[]; apps: false } {
  return { questions: hostQuestions(host), apps: false }
}

/** The CLI as the host of a call on a connection of its own: its roots, elicitation, and sampling if set. */
export function cliAsker(host: HostOptions): DownstreamAsker {
  const answers = [...(host.answers ?? [])]
  return {
    listRoots: async () => ({ roots: host.roots.map((uri) => ({ uri, name: uri.replace(/^file:\/\//, '') })) }),
    elicit: (params) => answer('elicit', params, host, answers),
    sample: host.samplingCommand !== '' ? (params: JsonObject) => answer('sample', params, host, answers) : refuseSampling,
  }
}
