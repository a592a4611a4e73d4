/**
 * An ad-hoc target (a URL, or --stdio "command"): connected directly through the gateway's own
 * Upstream (era probe, OAuth from stored credentials), without the config or the daemon. Its own
 * module so a daemon call never loads the gateway or OAuth (cli/target.ts imports it on demand).
 */
import { createUpstreamAuth } from '../lib/auth/index.ts'
import type { ServerConfig } from '../lib/config/index.ts'
import { Upstream } from '../lib/gateway/index.ts'
import { type Revision, shapeResult, type JsonObject } from '../lib/wire/index.ts'
import type { ConfiguredContext } from './context.ts'
import type { HostOptions } from './host.ts'
import { slowNotice, withNotice } from './progress.ts'
import { type ServerSession, cliAsker, cliDeclares } from './target.ts'
import { stderrIsTty } from './tty.ts'

/**
 * The gateway's Upstream for a connection the CLI makes itself (an ad-hoc target, `call --record`): the CLI's
 * declarations, `${VAR}`s from this command's environment, and stored OAuth unless the config sends its own
 * Authorization header.
 */
export function cliUpstream(ctx: ConfiguredContext, config: ServerConfig, host: HostOptions): Upstream {
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
export function directSession(ctx: ConfiguredContext, config: ServerConfig, host: HostOptions): ServerSession {
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
              const line = `${host.label} ${tool}: ${update.progress}${update.total !== undefined ? `/${update.total}` : ''}${update.message ? ` ${update.message}` : ''}`
              process.stderr.write(tty ? `\r\x1b[K${line}` : `${line}\n`)
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
function shapedFor(upstream: Upstream, method: string, result: JsonObject): JsonObject {
  const revision = upstream.status().revision
  return revision === undefined ? result : shapeResult(revision as Revision, method, result)
}
