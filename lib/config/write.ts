/**
 * Writing config files safely: a timestamped backup of the previous file first, then an atomic
 * replace (temp file + rename) keeping the file's mode. Used by `mcpx import` (the mcpx config)
 * and `mcpx install` (a host's config).
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/** Write `text` to `file`; returns the backup path when an existing file was replaced. */
export function writeWithBackup(file: string, text: string, now: Date = new Date()): string | null {
  mkdirSync(dirname(file), { recursive: true })
  let backup: string | null = null
  let mode = 0o600
  if (existsSync(file)) {
    mode = statSync(file).mode & 0o777
    backup = `${file}.mcpx-backup-${now.toISOString().replace(/[:.]/g, '-')}`
    copyFileSync(file, backup)
  }
  const temp = `${file}.mcpx-${process.pid}.tmp`
  writeFileSync(temp, text, { mode })
  renameSync(temp, file)
  return backup
}
