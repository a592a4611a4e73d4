/**
 * The general JSON Schema interpreter (@cfworker/json-schema), loaded the first time a value needs
 * it: trusted.ts and untrusted.ts try the fast accept-check (accept.ts) first, and a daemon whose
 * calls all pass it (plain schemas, valid arguments) never runs the interpreter. Both require() this
 * module, so it is a chunk of its own (bun build --splitting) that loads at that first use; a static
 * import would load its 42 KB of JavaScript with the daemon (README "Start-up and memory").
 */
import { type Schema, type SchemaDraft, Validator } from '@cfworker/json-schema'

export type Interpreter = Validator

export function createInterpreter(schema: object, draft: SchemaDraft): Interpreter {
  return new Validator(schema as Schema, draft, false)
}
