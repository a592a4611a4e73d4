/** Arguments shared by several commands. */
export const commonArgs = {
  config: { type: 'string', description: 'Config file (default: $MCPX_CONFIG, then the XDG config dir)', valueHint: 'file' },
  json: { type: 'boolean', description: 'Machine-readable output on stdout; errors as one JSON line on stderr' },
  verbose: { type: 'boolean', description: 'Log debug detail on stderr' },
  quiet: { type: 'boolean', description: 'Log only errors on stderr' },
} as const
