/** Arguments shared by several commands. */
export const commonArgs = {
  config: { type: 'string', description: 'Config file (default: $MCPX_CONFIG, then the XDG config dir)', valueHint: 'file' },
  json: { type: 'boolean', description: 'Machine-readable output on stdout; errors as one JSON line on stderr' },
  verbose: { type: 'boolean', description: 'Log debug detail on stderr' },
  quiet: { type: 'boolean', description: 'Log only errors on stderr' },
} as const

/** The switches of commonArgs as typed (`--json`…): they may stand before the command (dispatch.ts) and are skipped by completion. */
export const COMMON_SWITCHES: ReadonlySet<string> = new Set(
  Object.entries(commonArgs)
    .filter(([, def]) => def.type === 'boolean')
    .map(([name]) => `--${name}`),
)
