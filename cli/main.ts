#!/usr/bin/env bun
/**
 * mcpx entry point: the root citty command with lazily loaded subcommands (one file each under
 * cli/commands/). cli/dispatch.ts parses strictly, answers --help/--version and sends every failure
 * through cli/exit.ts, which alone decides the exit code.
 */
import { type CommandDef, defineCommand } from 'citty'
import { dispatch } from './dispatch.ts'
import { VERSION } from './version.ts'

const load = (importer: () => Promise<{ default: CommandDef<any> }>) => () => importer().then((m) => m.default)

export const main = defineCommand({
  meta: { name: 'mcpx', version: VERSION, description: 'Toolkit and gateway for the Model Context Protocol (every revision, both eras)' },
  subCommands: {
    call: load(() => import('./commands/call.ts')),
    servers: load(() => import('./commands/servers.ts')),
    serve: load(() => import('./commands/serve.ts')),
    tools: load(() => import('./commands/tools.ts')),
    search: load(() => import('./commands/search.ts')),
    types: load(() => import('./commands/types.ts')),
    exec: load(() => import('./commands/exec.ts')),
    settings: load(() => import('./commands/settings.ts')),
    probe: load(() => import('./commands/probe.ts')),
    auth: load(() => import('./commands/auth.ts')),
    record: load(() => import('./commands/record.ts')),
    replay: load(() => import('./commands/replay.ts')),
    daemon: load(() => import('./commands/daemon.ts')),
    status: load(() => import('./commands/status.ts')),
    logs: load(() => import('./commands/logs.ts')),
    import: load(() => import('./commands/import.ts')),
    install: load(() => import('./commands/install.ts')),
    uninstall: load(() => import('./commands/uninstall.ts')),
    resource: load(() => import('./commands/resource.ts')),
    prompt: load(() => import('./commands/prompt.ts')),
    tasks: load(() => import('./commands/tasks.ts')),
    completion: load(() => import('./commands/completion.ts')),
    doctor: load(() => import('./commands/doctor.ts')),
    'sandbox-child': load(() => import('./commands/sandbox-child.ts')),
    'demo-server': load(() => import('./commands/demo-server.ts')),
  },
})

async function run(rawArgs: string[]): Promise<void> {
  await dispatch(main, rawArgs, VERSION)
}

if (import.meta.main) await run(process.argv.slice(2))
