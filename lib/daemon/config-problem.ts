/** The one line every command prints when the daemon could not load its config file (DaemonInfo.configProblem). */
import type { DaemonInfo } from './operation-contract.ts'

export function configProblemLine(info: DaemonInfo): string | null {
  const problem = info.configProblem
  if (problem === undefined) return null
  const serving = problem.servingSince === null ? 'serving no servers' : `serving the version of ${clockTime(problem.servingSince)}`
  return `config ${problem.file} not loaded: ${problem.message}; ${serving}`
}

function clockTime(iso: string): string {
  const at = new Date(iso)
  return `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`
}
