/**
 * Feedback on stderr for anything slower than setting cliSlowNoticeMs: on a terminal a spinner
 * naming what is awaited (cleared when it ends), otherwise one plain line. Nothing at all for
 * what answers sooner.
 */
import { stderrIsTty } from './tty.ts'

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const FRAME_MS = 100

export interface Notice {
  /** Stop for good (clears the spinner). */
  stop(): void
  /** Clear the spinner while something else talks to the user; it does not come back. */
  pause(): void
}

export function slowNotice(label: string, delayMs: number): Notice {
  let spinner: ReturnType<typeof setInterval> | undefined
  let frame = 0
  // Whether stderr is a terminal is asked only once the notice is due (cli/tty.ts).
  const timer = setTimeout(() => {
    if (!stderrIsTty()) return void process.stderr.write(`mcpx: ${label}…\n`)
    spinner = setInterval(() => process.stderr.write(`\r\x1b[K${FRAMES[frame++ % FRAMES.length]} ${label}…`), FRAME_MS)
    spinner.unref?.()
  }, delayMs)
  timer.unref?.()
  const stop = () => {
    clearTimeout(timer)
    if (spinner !== undefined) {
      clearInterval(spinner)
      spinner = undefined
      process.stderr.write('\r\x1b[K')
    }
  }
  return { stop, pause: stop }
}

/** Run `work` with a slow notice around it. */
export async function withNotice<T>(label: string, delayMs: number, work: () => Promise<T>): Promise<T> {
  const notice = slowNotice(label, delayMs)
  try {
    return await work()
  } finally {
    notice.stop()
  }
}

/** An upstream's `notifications/progress` during a call, as one stderr line: `label: 3/4 message`. */
export function progressLine(label: string, update: { progress?: unknown; total?: unknown; message?: unknown }): string {
  return `${label}: ${update.progress}${update.total !== undefined ? `/${update.total}` : ''}${update.message ? ` ${update.message}` : ''}`
}

/**
 * An upstream's `notifications/message` during a call (2025-11-25 server/utilities/logging.mdx:
 * `level`, optional `logger`, any JSON `data`), as one stderr line: `label: [info] text`.
 */
export function logLine(label: string, params: { level?: unknown; logger?: unknown; data?: unknown }): string {
  // A line without data (the schema requires it; some servers omit it) shows only its level.
  const text = typeof params.data === 'string' ? params.data : params.data === undefined ? '' : JSON.stringify(params.data)
  return `${label}: [${String(params.level ?? 'info')}${params.logger ? ` ${String(params.logger)}` : ''}]${text === '' ? '' : ` ${text}`}`
}
