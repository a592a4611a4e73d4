/**
 * Usage lines, notes and examples for each command's `--help`, keyed by the command path
 * ("call", "daemon start"). Kept beside the help renderer so every command shows examples.
 */
export interface HelpExtra {
  readonly usage?: string
  readonly notes?: readonly string[]
  readonly examples: readonly string[]
}

export const EXAMPLES: Record<string, HelpExtra> = {
  '': {
    usage: 'mcpx [--config FILE] [--json] [--verbose] [--quiet] <command> [options]',
    notes: ['--config, --json, --verbose and --quiet go before the command or after it (mcpx --config team.json servers).'],
    examples: [
      'mcpx tools',
      'mcpx call everything.echo message=hi',
      'mcpx call https://example.com/mcp echo message=hi',
      'mcpx resource read everything demo://resource/static/document/architecture.md',
    ],
  },
  call: {
    usage: "mcpx call <server.tool | URL tool | --stdio CMD tool> [key=value | key=@file | '{json}' | -]... [options]",
    notes: [
      "Arguments: key=value pairs are coerced by the tool's inputSchema (numbers, booleans, JSON for objects and arrays); key=@file reads the value from a file; a positional '{...}' is a JSON object of arguments; - (or no arguments for a tool with required parameters, with stdin piped) reads a JSON object from stdin. `mcpx tools <server.tool>` lists a tool's parameters.",
      'Repeating a key builds an array (only for array parameters); a single value for an array parameter becomes a one-element array; dotted keys build nested objects (a.b=1, items.0.name=x).',
      'Ad-hoc targets need no config: a URL (https://host/mcp) or --stdio "command args" names the server, the next word the tool.',
      'Exit codes: 0 ok, 1 the tool returned isError, 2 usage / unknown name, 3 connect or deadline, 4 auth, 5 peer error.',
    ],
    examples: [
      'mcpx call everything.echo message=hello',
      'mcpx call filesystem.read_text_file path=@path.txt',
      'mcpx call memory.create_entities \'{"entities":[{"name":"a","entityType":"t","observations":[]}]}\'',
      'echo \'{"message":"hi"}\' | mcpx call everything.echo -',
      'mcpx call fs.list_allowed_directories --root /tmp',
      'mcpx call everything.get-tiny-image --out logo.png',
      'mcpx call everything.trigger-elicitation-request --answers answers.json',
      'mcpx call http://127.0.0.1:3000/mcp echo message=hi',
      'mcpx call --stdio "npx -y @modelcontextprotocol/server-everything" echo message=hi',
    ],
  },
  tools: {
    examples: [
      'mcpx tools',
      'mcpx tools everything',
      'mcpx tools everything.get-sum',
      'mcpx tools --url http://127.0.0.1:3000/mcp',
      'mcpx tools --stdio "npx -y @modelcontextprotocol/server-memory"',
      "mcpx tools --json | jq '.[0].tools[].name'",
    ],
  },
  servers: { examples: ['mcpx servers', 'mcpx servers --json'] },
  search: { examples: ['mcpx search read a file', 'mcpx search echo --server everything --limit 3'] },
  types: { examples: ['mcpx types', 'mcpx types everything', 'mcpx types everything.echo', 'mcpx types --query "read file"'] },
  exec: { examples: ['mcpx exec script.ts', 'echo \'return await everything.echo({ message: "hi" })\' | mcpx exec -'] },
  settings: { examples: ['mcpx settings', 'mcpx settings --json', 'mcpx settings --markdown'] },
  probe: {
    examples: [
      'mcpx probe https://example.com/mcp',
      'mcpx probe -- npx -y @modelcontextprotocol/server-everything',
      'mcpx probe --stdio "npx -y @modelcontextprotocol/server-everything"',
      'mcpx probe --json http://127.0.0.1:3000/mcp',
    ],
  },
  auth: { examples: ['mcpx auth login myserver', 'mcpx auth status', 'mcpx auth logout myserver'] },
  'auth login': { examples: ['mcpx auth login myserver', 'mcpx auth login myserver --no-browser'] },
  'auth logout': { examples: ['mcpx auth logout myserver'] },
  'auth status': { examples: ['mcpx auth status', 'mcpx auth status myserver --json'] },
  record: {
    examples: [
      'mcpx record session.jsonl -- npx -y @modelcontextprotocol/server-memory',
      'mcpx record session.jsonl --url http://127.0.0.1:3000/mcp',
    ],
  },
  replay: {
    examples: [
      'mcpx replay session.jsonl',
      'mcpx replay session.jsonl --serve --port 0',
      'mcpx replay session.jsonl --against http://127.0.0.1:3000/mcp',
      'mcpx replay session.jsonl --against -- bun server.ts --print',
    ],
  },
  resource: {
    examples: [
      'mcpx resource list everything',
      'mcpx resource read everything demo://resource/static/document/architecture.md',
      'mcpx resource read everything demo://resource/dynamic/blob/1 --out blob.bin',
    ],
  },
  'resource list': { examples: ['mcpx resource list everything', 'mcpx resource list everything --json'] },
  'resource read': {
    examples: [
      'mcpx resource read everything demo://resource/static/document/architecture.md',
      'mcpx resource read everything demo://resource/dynamic/blob/1 --out blob.bin',
    ],
  },
  prompt: { examples: ['mcpx prompt list everything', 'mcpx prompt get everything.args-prompt city=Paris state=TX'] },
  'prompt list': { examples: ['mcpx prompt list everything'] },
  'prompt get': { examples: ['mcpx prompt get everything.simple-prompt', 'mcpx prompt get everything.args-prompt city=Paris'] },
  tasks: { examples: ['mcpx tasks list everything', 'mcpx tasks get everything TASK_ID', 'mcpx tasks cancel everything TASK_ID'] },
  'tasks list': { examples: ['mcpx tasks list everything'] },
  'tasks get': { examples: ['mcpx tasks get everything TASK_ID'] },
  'tasks cancel': { examples: ['mcpx tasks cancel everything TASK_ID'] },
  completion: {
    examples: [
      'source <(mcpx completion bash)',
      'mcpx completion zsh > ~/.zfunc/_mcpx',
      'mcpx completion fish > ~/.config/fish/completions/mcpx.fish',
    ],
  },
  doctor: { examples: ['mcpx doctor', 'mcpx doctor --json'] },
  serve: {
    examples: ['mcpx serve', 'mcpx serve --mode raw', 'mcpx serve --passthrough everything', 'mcpx serve --config ./project/mcpx.json'],
  },
  daemon: {
    examples: [
      'mcpx daemon start',
      'mcpx daemon status',
      'mcpx daemon restart',
      'mcpx daemon stop',
      'mcpx daemon stop --all',
      'mcpx daemon health',
    ],
  },
  status: { examples: ['mcpx status', 'mcpx status --all', 'mcpx status --verbose', 'mcpx status --json'] },
  logs: { examples: ['mcpx logs', 'mcpx logs -n 50 -f', 'mcpx logs --config ./project/mcpx.json'] },
  import: {
    examples: ['mcpx import --dry-run', 'mcpx import', 'mcpx import claude-code', 'mcpx import cursor --config ./project/mcpx.json'],
  },
  install: { examples: ['mcpx install claude-code', 'mcpx install claude-code --dry-run'] },
  uninstall: { examples: ['mcpx uninstall claude-code', 'mcpx uninstall claude-code --dry-run'] },
}
