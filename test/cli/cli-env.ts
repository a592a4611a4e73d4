/** An isolated user for CLI tests: temp HOME, XDG dirs and MCPX_HOME, no inherited MCPX_CONFIG. */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../harness.ts'

export function isolatedUser(prefix: string) {
  const dir = tempDir(prefix)
  const home = join(dir.path, 'home')
  const project = join(dir.path, 'project')
  mkdirSync(home, { recursive: true })
  mkdirSync(project, { recursive: true })
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    MCPX_HOME: join(dir.path, 'mcpx'),
    MCPX_CONFIG: '',
  }
  return { home, project, env, configFile: join(home, '.config', 'mcpx', 'config.json'), [Symbol.dispose]: () => dir[Symbol.dispose]() }
}
