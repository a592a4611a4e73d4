/**
 * What code mode builds from the catalogs, loaded by the first search or types request
 * (code-mode.ts imports this module dynamically): the search index (lib/search) and the TypeScript
 * declarations (lib/codemode's renderer). A daemon serving only raw surfaces and CLI calls never
 * loads them (README "Start-up and memory"); its sandbox pool, warmed at start, is apart.
 * Importing the doors statically here, rather than import()ing them from code-mode.ts, keeps them
 * out of the chunks every daemon loads: a door imported dynamically is a module both graphs share.
 */
export { renderDeclarationsFor } from '../codemode/index.ts'
export { createToolIndex } from '../search/index.ts'
