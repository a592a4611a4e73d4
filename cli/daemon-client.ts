/**
 * The daemon client every daemon-facing command uses (re-exported by cli/commands/daemon.ts), in
 * its own module so `mcpx call` does not load the daemon command and, through it, the daemon.
 */
import type { HomeLayout } from '../lib/config/index.ts'
import { type ConnectRetry, DaemonClient, configProblemLine, otherBuildLine, thisBuild } from '../lib/daemon/index.ts'
import { type CliContext, layoutOf, refreshEnvSnapshot } from './context.ts'

type CommonFlags = { json?: boolean; verbose?: boolean; quiet?: boolean; config?: string }

/**
 * The client every daemon-facing command uses, for the daemon of this command's config location;
 * it starts that daemon on demand when `autostart`. Every command but `serve` (`shell: true`) also
 * refreshes the environment snapshot the daemon resolves `${VAR}` in (see refreshEnvSnapshot).
 * A daemon started by another mcpx binary is said in one stderr line, unless `reportBuild: false`
 * (commands that say it in their output, or that stop the daemon anyway). Never restarted for the
 * user: other hosts may be connected to it.
 */
export function daemonClient(
  ctx: CliContext,
  _args: CommonFlags,
  autostart: boolean,
  options: { shell?: boolean; layout?: HomeLayout; reportBuild?: boolean } = {},
): DaemonClient {
  const layout = options.layout ?? layoutOf(ctx)
  if (options.shell !== false && options.layout === undefined) refreshEnvSnapshot(ctx)
  return new DaemonClient({
    layout,
    healthTimeoutMs: ctx.settings.daemonStartTimeoutMs,
    connectRetry: connectRetry(ctx.settings),
    build: {
      id: thisBuild().id,
      ...(options.reportBuild !== false && { onOtherBuild: () => process.stderr.write(`mcpx: ${otherBuildLine()}\n`) }),
    },
    stopTimeoutMs: ctx.settings.daemonStopTimeoutMs,
    onInfo: (info) => {
      const line = configProblemLine(info)
      if (line !== null) process.stderr.write(`${line}\n`)
    },
    // The default location is the daemon's own to find (it may not exist yet); an explicit one is passed absolute.
    ...(autostart && {
      start: {
        argv: [...ctx.self, 'daemon', 'run', ...(ctx.paths.explicitConfig !== undefined ? ['--config', layout.config] : [])],
        timeoutMs: ctx.settings.daemonStartTimeoutMs,
        logMaxBytes: ctx.settings.daemonLogMaxBytes,
        ftlJit: ctx.settings.daemonFtlJit,
        // The daemon inherits the starter's environment (the registry's rule: only cli/context.ts reads it).
        env: ctx.env,
      },
    }),
  })
}

/** Connects a busy daemon refused are retried within the request deadline (lib/daemon/connect.ts). */
export function connectRetry(settings: CliContext['settings']): ConnectRetry {
  return {
    deadlineMs: settings.requestTimeoutMs > 0 ? settings.requestTimeoutMs : settings.daemonStartTimeoutMs,
    backoffMs: settings.daemonConnectBackoffMs,
    backoffMaxMs: settings.daemonConnectBackoffMaxMs,
  }
}
