/**
 * Ranked search over upstream tools: BM25F over name, title, server, description and parameters, with
 * per-field boosts. Incremental (a server's tools are added, replaced or removed as upstreams change;
 * length sums kept as it goes, never rebuilt). Unknown query terms fall back to prefix / one-edit
 * matches at a discount, and a small synonym table widens paraphrases. Pure: no I/O, no clock.
 */
import { SYNONYMS, tokenize } from './tokenize.ts'

/** What the index needs to know about a tool (a subset of an MCP Tool). */
export interface ToolDoc {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly inputSchema?: unknown
}

export interface SearchHit {
  readonly server: string
  readonly name: string
  /** `server.name`, as `mcpx.call` and the gateway spell it. */
  readonly qualifiedName: string
  readonly title?: string
  /** First sentence or line of the description, at most DESCRIPTION_CHARS characters. */
  readonly description: string
  readonly score: number
}

export interface SearchOptions {
  /** Only these servers (one name or several). */
  readonly server?: string | readonly string[]
  readonly limit?: number
  /** Only tools this accepts (a caller's access policy), applied before the limit. */
  readonly accept?: (server: string, name: string) => boolean
}

export interface ToolIndexOptions {
  /** Hits when the caller gives no limit (settings.searchDefaultLimit). */
  readonly defaultLimit?: number
  /** Upper bound on any limit (settings.searchMaxLimit). */
  readonly maxLimit?: number
}

const FIELDS = ['name', 'title', 'server', 'description', 'params'] as const
type Field = (typeof FIELDS)[number]
/** Name matches matter most; parameters only hint (name ×3, server ×2, params ×0.5 ranked best on a 2000-tool corpus). */
const BOOST: Readonly<Record<Field, number>> = { name: 3, title: 2, server: 2, description: 1, params: 0.5 }
/** Standard BM25 constants. */
const K1 = 1.2
const B = 0.75
/** Weight of a query term reached only through a synonym, a prefix or one edit. */
const EXPANDED_WEIGHT = 0.5
/** Shorter unknown stems are too ambiguous to widen (`isues` stems to `isu`, which still may). */
const FUZZY_MIN_LENGTH = 3
const DESCRIPTION_CHARS = 200
/** How deep parameter schemas are walked for names and descriptions. */
const PARAM_DEPTH = 3

interface DocEntry {
  readonly id: number
  readonly server: string
  readonly name: string
  readonly title?: string
  readonly description: string
  readonly lengths: readonly number[]
  readonly terms: ReadonlyMap<string, readonly number[]>
}

export class ToolIndex {
  readonly #docs = new Map<number, DocEntry>()
  readonly #byServer = new Map<string, Map<string, number>>()
  /** term → doc id → term frequency per field (FIELDS order). */
  readonly #postings = new Map<string, Map<number, readonly number[]>>()
  readonly #lengthSums = FIELDS.map(() => 0)
  #nextId = 0
  readonly #defaultLimit: number
  readonly #maxLimit: number

  constructor(options: ToolIndexOptions = {}) {
    this.#defaultLimit = options.defaultLimit ?? 10
    this.#maxLimit = options.maxLimit ?? 100
  }

  /** Number of tools indexed. */
  get size(): number {
    return this.#docs.size
  }

  /** Servers with at least one tool. */
  servers(): string[] {
    return [...this.#byServer.keys()]
  }

  /** Replace everything known about `server` with `tools` (what tools/list returned). */
  setServer(server: string, tools: readonly ToolDoc[]): void {
    this.removeServer(server)
    for (const tool of tools) this.upsert(server, tool)
  }

  /** Add one tool, or replace the tool of that name. */
  upsert(server: string, tool: ToolDoc): void {
    this.remove(server, tool.name)
    const fields: Record<Field, string[]> = {
      name: tokenize(tool.name),
      title: tokenize(tool.title ?? ''),
      server: tokenize(server),
      description: tokenize(tool.description ?? ''),
      params: tokenize(paramText(tool.inputSchema, PARAM_DEPTH).join(' ')),
    }
    const terms = new Map<string, number[]>()
    FIELDS.forEach((field, f) => {
      for (const term of fields[field]) {
        let tf = terms.get(term)
        if (!tf) terms.set(term, (tf = FIELDS.map(() => 0)))
        tf[f]!++
      }
    })
    const id = this.#nextId++
    const lengths = FIELDS.map((field) => fields[field].length)
    const doc: DocEntry = { id, server, name: tool.name, title: tool.title, description: summary(tool.description ?? ''), lengths, terms }
    this.#docs.set(id, doc)
    lengths.forEach((len, f) => (this.#lengthSums[f]! += len))
    for (const [term, tf] of terms) {
      let posting = this.#postings.get(term)
      if (!posting) this.#postings.set(term, (posting = new Map()))
      posting.set(id, tf)
    }
    let names = this.#byServer.get(server)
    if (!names) this.#byServer.set(server, (names = new Map()))
    names.set(tool.name, id)
  }

  /** Forget one tool; true when it was indexed. */
  remove(server: string, name: string): boolean {
    const names = this.#byServer.get(server)
    const id = names?.get(name)
    if (id === undefined || !names) return false
    const doc = this.#docs.get(id)!
    for (const term of doc.terms.keys()) {
      const posting = this.#postings.get(term)
      posting?.delete(id)
      if (posting?.size === 0) this.#postings.delete(term)
    }
    doc.lengths.forEach((len, f) => (this.#lengthSums[f]! -= len))
    this.#docs.delete(id)
    names.delete(name)
    if (names.size === 0) this.#byServer.delete(server)
    return true
  }

  /** Forget every tool of `server` (it disconnected). */
  removeServer(server: string): void {
    for (const name of [...(this.#byServer.get(server)?.keys() ?? [])]) this.remove(server, name)
  }

  /** Best matches first; ties broken by server then name so results are stable. */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    const limit = Math.max(0, Math.min(this.#maxLimit, Math.floor(options.limit ?? this.#defaultLimit)))
    const servers =
      options.server === undefined ? undefined : new Set(typeof options.server === 'string' ? [options.server] : options.server)
    const weights = this.#queryTerms(query)
    if (limit === 0 || weights.size === 0 || this.#docs.size === 0) return []
    const n = this.#docs.size
    const avg = this.#lengthSums.map((sum) => Math.max(1, sum / n))
    const scores = new Map<number, number>()
    for (const [term, weight] of weights) {
      const posting = this.#postings.get(term)
      if (!posting) continue
      const idf = Math.log(1 + (n - posting.size + 0.5) / (posting.size + 0.5))
      for (const [id, tf] of posting) {
        const doc = this.#docs.get(id)!
        if (servers && !servers.has(doc.server)) continue
        if (options.accept && !options.accept(doc.server, doc.name)) continue
        let weighted = 0
        for (let f = 0; f < FIELDS.length; f++) {
          const count = tf[f]!
          if (count === 0) continue
          weighted += (BOOST[FIELDS[f]!] * count) / (1 - B + (B * doc.lengths[f]!) / avg[f]!)
        }
        scores.set(id, (scores.get(id) ?? 0) + weight * idf * ((weighted * (K1 + 1)) / (weighted + K1)))
      }
    }
    return topK(scores, limit, (id) => this.#docs.get(id)!).map(([id, score]) => {
      const doc = this.#docs.get(id)!
      return {
        server: doc.server,
        name: doc.name,
        qualifiedName: `${doc.server}.${doc.name}`,
        ...(doc.title ? { title: doc.title } : {}),
        description: doc.description,
        score: Math.round(score * 1000) / 1000,
      }
    })
  }

  /** Query stems with weights: exact 1, synonyms / prefix / one-edit neighbours EXPANDED_WEIGHT. */
  #queryTerms(query: string): Map<string, number> {
    const weights = new Map<string, number>()
    const add = (term: string, weight: number) => weights.set(term, Math.max(weights.get(term) ?? 0, weight))
    for (const term of tokenize(query)) {
      if (this.#postings.has(term)) add(term, 1)
      else for (const near of this.#neighbours(term)) add(near, EXPANDED_WEIGHT)
      for (const synonym of SYNONYMS[term] ?? []) if (this.#postings.has(synonym)) add(synonym, EXPANDED_WEIGHT)
    }
    return weights
  }

  /** Vocabulary terms the unknown `term` probably meant: it is their prefix, or one edit away. */
  #neighbours(term: string): string[] {
    if (term.length < FUZZY_MIN_LENGTH) return []
    const out: string[] = []
    for (const known of this.#postings.keys()) {
      if (Math.abs(known.length - term.length) > 1 && !known.startsWith(term)) continue
      if (known.startsWith(term) || withinOneEdit(term, known)) out.push(known)
    }
    return out
  }
}

/** Parameter names and descriptions of an input schema, a few levels deep. */
function paramText(schema: unknown, depth: number): string[] {
  if (depth <= 0 || typeof schema !== 'object' || schema === null) return []
  const properties = (schema as { properties?: unknown }).properties
  if (typeof properties !== 'object' || properties === null) return []
  const out: string[] = []
  for (const [key, value] of Object.entries(properties as Record<string, unknown>)) {
    out.push(key)
    if (typeof value === 'object' && value !== null) {
      const description = (value as { description?: unknown }).description
      if (typeof description === 'string') out.push(description)
      out.push(...paramText(value, depth - 1), ...paramText((value as { items?: unknown }).items, depth - 1))
    }
  }
  return out
}

function summary(description: string): string {
  const firstLine = description.trim().split(/\n/)[0] ?? ''
  const sentence = firstLine.match(/^.*?[.!?](?=\s|$)/)?.[0] ?? firstLine
  return sentence.length > DESCRIPTION_CHARS ? `${sentence.slice(0, DESCRIPTION_CHARS - 1)}…` : sentence
}

function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true
  if (Math.abs(a.length - b.length) > 1) return false
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  if (a.length === b.length)
    return a.slice(i + 1) === b.slice(i + 1) || (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2))
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1)
}

/** The `k` best scores without sorting everything; ties by server then name. */
function topK(scores: Map<number, number>, k: number, docOf: (id: number) => DocEntry): Array<[number, number]> {
  const better = (a: [number, number], b: [number, number]): boolean => {
    if (a[1] !== b[1]) return a[1] > b[1]
    const da = docOf(a[0])
    const db = docOf(b[0])
    return da.server !== db.server ? da.server < db.server : da.name < db.name
  }
  const best: Array<[number, number]> = []
  for (const entry of scores) {
    if (best.length < k) best.push(entry)
    else if (better(entry, best[k - 1]!)) best[k - 1] = entry
    else continue
    for (let i = best.length - 1; i > 0 && better(best[i]!, best[i - 1]!); i--) [best[i], best[i - 1]] = [best[i - 1]!, best[i]!]
  }
  return best
}
