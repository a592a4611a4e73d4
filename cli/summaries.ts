/**
 * The one-line description of each top-level command, for `mcpx --help`: the root help lists
 * them without loading 23 command modules (cli/help.ts). Each must equal that command's own
 * meta.description; test/cli/summaries.test.ts fails when one drifts.
 */
export const SUMMARIES: Readonly<Record<string, string>> = {
  call: 'Call one tool: mcpx call <server.tool> [key=value ...], or an ad-hoc server: mcpx call <URL> <tool> ... / mcpx call --stdio "CMD" <tool> ...',
  servers: 'List the configured upstream servers and their state',
  serve: 'Serve the gateway to an MCP host over stdio (via the daemon, started on demand)',
  tools:
    'List upstream tools: mcpx tools [server], one in full: mcpx tools server.tool, or an ad-hoc server: mcpx tools --url URL / --stdio "CMD"',
  search: 'Find upstream tools by what they do: mcpx search <query>',
  types: 'TypeScript declarations of upstream tools: mcpx types [server[.tool]]',
  exec: 'Run a script that calls upstream tools (JavaScript or TypeScript): mcpx exec <file|->',
  settings: 'List every tunable: value, default, environment override, meaning',
  probe:
    'Report what an MCP server speaks: era (modern/legacy/dual), revisions, transport, identity, capabilities, auth, timings. Exit 0 = an era answered; 3 = nothing listening, not MCP, or the command exits at once; 4 = authorization required; 5 = no era/revision in common',
  auth: 'OAuth credentials for HTTP upstreams: login, logout, status',
  record: 'Relay a host to an MCP server on stdio and record the traffic to FILE (JSONL, secrets redacted)',
  replay: 'Print a recording, serve it as the recorded server, or replay it against a live server and diff',
  daemon: 'Manage the mcpx daemon of a config (start, stop, restart, status, run) and call its /v1 API',
  status: 'Show the daemon and the configured servers with their state (--all: every running daemon)',
  logs: "Print the daemon's log for this config (-f: follow it)",
  import:
    'Import MCP servers from host configs (claude-code, claude-desktop, cursor, vscode, windsurf, gemini, codex, opencode; default: all)',
  install:
    "Register mcpx (`mcpx serve`) in a host's MCP config (claude-code, claude-desktop, cursor, vscode, windsurf, gemini, codex, opencode)",
  uninstall: "Remove mcpx from a host's MCP config (claude-code, claude-desktop, cursor, vscode, windsurf, gemini, codex, opencode)",
  resource: "Read an upstream's resources: mcpx resource list|read <server> [uri]",
  prompt: "Use an upstream's prompts: mcpx prompt list|get",
  tasks: 'Tasks an upstream holds: mcpx tasks list|get|cancel <server> [id]',
  completion: 'Print a shell completion script: mcpx completion bash|zsh|fish (source it)',
  doctor: 'Check the installation: mcpx on PATH, config, daemon, each server (exit non-zero on any problem)',
}
