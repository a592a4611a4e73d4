/** The bench scripts' numeric flags: `--name` as an integer of at least `least`, else an error naming the flag. */
export function integerFlag(name: string, value: string | undefined, least = 1): number {
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed < least) throw new Error(`--${name} must be an integer ≥ ${least}`)
  return parsed
}
