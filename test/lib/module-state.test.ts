/**
 * No module-level mutable state in lib/ outside the declared caches modules (issue 15, item 4).
 * State at module level is shared by every owner in the process — two daemons or two engines in one
 * test process, a gateway's many upstreams — so a counter or a map that belongs to one of them leaks
 * into the others. Per-instance state lives on its owner; what is genuinely process-wide (a
 * compiled wasm module, a stemmer's word cache, the one `exit` hook's list of process groups) lives
 * in a room's `caches.ts`, each entry saying why it is process-wide.
 *
 * Read with TypeScript's parser, so text inside strings (the sandbox prelude is source text) is not
 * code. Flagged at the top level of a module: any `let` or `var`; a `const` Map, Set, array or
 * object literal that the same file mutates (a mutating method, an assignment or `delete` through
 * it, `Object.assign` into it), in its own file or in one that imports it. Allowed: `lib/<room>/caches.ts`; lib/log/index.ts (the process's one
 * stderr logger and its level, set by the CLI's flags before anything logs); a WeakMap or WeakSet,
 * which is a side table keyed by its owner object — that owner's state, freed with it.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { REPO_ROOT } from '../harness.ts'

const DECLARED = (name: string) => /^lib\/[^/]+\/caches\.ts$/.test(name) || name === 'lib/log/index.ts'
const COLLECTIONS = new Set(['Map', 'Set', 'Array'])
const MUTATORS = new Set([
  'set',
  'add',
  'delete',
  'clear',
  'push',
  'pop',
  'shift',
  'unshift',
  'splice',
  'sort',
  'reverse',
  'fill',
  'copyWithin',
])

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : []
  })
}

/** A value whose contents can change: `new Map/Set/Array(…)`, `[…]` or `{…}` (through `as`/`satisfies`). */
function isMutableValue(init: ts.Expression | undefined): boolean {
  let e = init
  while (e && (ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e))) e = e.expression
  if (e === undefined) return false
  if (ts.isArrayLiteralExpression(e) || ts.isObjectLiteralExpression(e)) return true
  return ts.isNewExpression(e) && ts.isIdentifier(e.expression) && COLLECTIONS.has(e.expression.text)
}

/** The identifier a property/element access chain starts from (`a.b[c].d` → a). */
function rootOf(e: ts.Expression): string | undefined {
  while (
    ts.isPropertyAccessExpression(e) ||
    ts.isElementAccessExpression(e) ||
    ts.isNonNullExpression(e) ||
    ts.isParenthesizedExpression(e)
  )
    e = e.expression
  return ts.isIdentifier(e) ? e.text : undefined
}

const isAccess = (e: ts.Expression) => ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)

/** Names this source mutates through (their contents, not the binding). */
function mutatedNames(sf: ts.SourceFile): Set<string> {
  const out = new Set<string>()
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression
      if (ts.isPropertyAccessExpression(callee) && MUTATORS.has(callee.name.text)) {
        const root = rootOf(callee.expression)
        if (root) out.add(root)
      }
      if (ts.isPropertyAccessExpression(callee) && callee.getText(sf) === 'Object.assign' && node.arguments[0]) {
        const root = rootOf(node.arguments[0])
        if (root) out.add(root)
      }
    }
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment &&
      isAccess(node.left)
    ) {
      const root = rootOf(node.left)
      if (root) out.add(root)
    }
    if (
      (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
      (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken) &&
      isAccess(node.operand)
    ) {
      const root = rootOf(node.operand)
      if (root) out.add(root)
    }
    if (ts.isDeleteExpression(node)) {
      const root = rootOf(node.expression)
      if (root) out.add(root)
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return out
}

/** Module-level mutable state of one file `name` (repository-relative) with this source text. */
function violationsOf(name: string, source: string): string[] {
  if (DECLARED(name)) return []
  const sf = ts.createSourceFile(name, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const mutated = mutatedNames(sf)
  const out: string[] = []
  for (const statement of sf.statements) {
    if (!ts.isVariableStatement(statement)) continue
    const list = statement.declarationList
    const isConst = (list.flags & ts.NodeFlags.Const) !== 0
    for (const decl of list.declarations) {
      const line = sf.getLineAndCharacterOfPosition(decl.getStart(sf)).line + 1
      const id = decl.name.getText(sf)
      if (!isConst) out.push(`${name}:${line} top-level ${list.flags & ts.NodeFlags.Let ? 'let' : 'var'} ${id}`)
      else if (ts.isIdentifier(decl.name) && isMutableValue(decl.initializer) && mutated.has(decl.name.text))
        out.push(`${name}:${line} top-level const ${id} is mutated`)
    }
  }
  return out
}

/** Exported top-level consts holding a mutable value, by name → the file that declares them. */
function exportedTables(name: string, source: string): [string, string][] {
  if (DECLARED(name)) return []
  const sf = ts.createSourceFile(name, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  return sf.statements.flatMap((statement) => {
    if (!ts.isVariableStatement(statement) || !statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return []
    if ((statement.declarationList.flags & ts.NodeFlags.Const) === 0) return []
    return statement.declarationList.declarations
      .filter((d) => ts.isIdentifier(d.name) && isMutableValue(d.initializer))
      .map((d) => [d.name.getText(sf), name] as [string, string])
  })
}

/** Every violation among these files (repository-relative name → source): each file's own, and a table exported by one module and mutated by a module that imports it. */
function violationsIn(sources: Record<string, string>): string[] {
  const tables = new Map(Object.entries(sources).flatMap(([name, source]) => exportedTables(name, source)))
  const out = Object.entries(sources).flatMap(([name, source]) => violationsOf(name, source))
  for (const [name, source] of Object.entries(sources)) {
    if (DECLARED(name)) continue
    const sf = ts.createSourceFile(name, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
    const mutated = mutatedNames(sf)
    for (const statement of sf.statements) {
      const bindings = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : undefined
      if (!bindings || !ts.isNamedImports(bindings)) continue
      for (const element of bindings.elements) {
        const imported = (element.propertyName ?? element.name).text
        const owner = tables.get(imported)
        if (owner !== undefined && owner !== name && mutated.has(element.name.text))
          out.push(`${name} mutates ${imported}, a module-level table of ${owner}`)
      }
    }
  }
  return out
}

describe('module-level mutable state in lib/', () => {
  test('only the declared caches modules hold it', () => {
    const sources = Object.fromEntries(files(join(REPO_ROOT, 'lib')).map((file) => [relative(REPO_ROOT, file), readFileSync(file, 'utf8')]))
    expect(violationsIn(sources)).toEqual([])
  })

  test('a planted violation is seen; text that only looks like state is not', () => {
    const file = 'lib/server/planted.ts'
    expect(violationsOf(file, 'let count = 0\nexport const next = () => ++count\n')).toEqual([
      'lib/server/planted.ts:1 top-level let count',
    ])
    expect(violationsOf(file, 'const seen = new Map<string, number>()\nexport function see(k: string) {\n  seen.set(k, 1)\n}\n')).toEqual([
      'lib/server/planted.ts:1 top-level const seen is mutated',
    ])
    expect(violationsOf(file, "const RULE = { needed: ['a'] }\nexport function widen() {\n  RULE.needed = ['a', 'b']\n}\n")).toEqual([
      'lib/server/planted.ts:1 top-level const RULE is mutated',
    ])
    expect(violationsOf(file, 'const QUEUE: number[] = []\nexport const put = (n: number) => QUEUE.push(n)\n')).toEqual([
      'lib/server/planted.ts:1 top-level const QUEUE is mutated',
    ])
    // Read-only tables, side tables keyed by their owner, state inside a function, and source text in a string are fine.
    expect(violationsOf(file, "const KINDS = new Set(['a'])\nexport const isKind = (k: string) => KINDS.has(k)\n")).toEqual([])
    expect(
      violationsOf(file, 'const byOwner = new WeakMap<object, number>()\nexport const mark = (o: object) => byOwner.set(o, 1)\n'),
    ).toEqual([])
    expect(violationsOf(file, 'export function f() {\n  let n = 0\n  const m = new Map()\n  m.set(1, ++n)\n}\n')).toEqual([])
    expect(violationsOf(file, 'export const PRELUDE = String.raw`let config = 0;`\n')).toEqual([])
    expect(violationsOf('lib/codemode/caches.ts', 'let compiled: Promise<unknown> | undefined\n')).toEqual([])
    // A table exported by one module and mutated by another that imports it (through a door, renamed or not).
    const rules = {
      'lib/server/rules.ts': 'export const RULES = { list: [] as string[] }\n',
      'lib/gateway/widen.ts': "import { RULES as R } from '../server/index.ts'\nexport const add = (s: string) => R.list.push(s)\n",
    }
    expect(violationsIn(rules)).toEqual(['lib/gateway/widen.ts mutates RULES, a module-level table of lib/server/rules.ts'])
    // A declared cache is mutated by its users, as it must be.
    expect(
      violationsIn({
        'lib/search/caches.ts': 'export const termCache = new Map<string, string>()\n',
        'lib/search/tokenize.ts': "import { termCache } from './caches.ts'\nexport const put = (w: string) => termCache.set(w, w)\n",
      }),
    ).toEqual([])
  })
})
