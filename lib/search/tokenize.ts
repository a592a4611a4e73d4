/**
 * Text → search terms, the same way for tool documents and queries: split on anything that is not
 * a letter or digit and on snake_case/camelCase/acronym boundaries (`getHTTPResponse` → get, http,
 * response), lower-case, drop stop words, then a light suffix stemmer so `issues`, `issue` and
 * `issued` meet. Deliberately small: tool names and descriptions are short, English-ish text.
 */
import { termCache } from './caches.ts'

const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could do does for from has have how i if in into is it its me my of on or our ' +
    'please should so some than that the their them then there these this those to too us was we were what when where which ' +
    'who will with would you your'
  ).split(' '),
)

/** camelCase humps and ACRONYMS followed by a word each become a piece; digits stick to their letters (s3, ec2, k8s, 2fa). */
const PIECE = /[A-Z0-9]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z0-9]+/g

/** Split and normalise without stemming (used for display-free matching and by tests). */
export function splitWords(text: string): string[] {
  // PIECE only matches letters and digits, so one pass over the whole text also splits on everything else.
  const pieces = text.match(PIECE)
  if (!pieces) return []
  for (let i = 0; i < pieces.length; i++) pieces[i] = pieces[i]!.toLowerCase()
  return pieces
}

/** Light English stemmer: plural and verb suffixes, and a trailing `e`, so inflections share a stem. */
export function stem(word: string): string {
  if (word.length <= 3 || /^[0-9]+$/.test(word)) return word
  let w = word
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`
  else if (/(?:ss|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2)
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1)
  if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3))
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2))
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1)
  return w
}

/** `stopp` → `stop`, `runn` → `run` (but `pull`, `pass` stay). */
function undouble(w: string): string {
  const last = w.at(-1)
  if (w.length > 3 && last === w.at(-2) && last !== undefined && !'lsz'.includes(last)) return w.slice(0, -1)
  return w
}

/** Bound on caches.ts termCache: tool vocabularies are small, so most words are seen before; cleared when full. */
const TERM_CACHE_SIZE = 50_000

function termOf(word: string): string {
  let term = termCache.get(word)
  if (term === undefined) {
    term = STOP_WORDS.has(word) || (word.length === 1 && !/[0-9]/.test(word)) ? '' : stem(word)
    if (termCache.size >= TERM_CACHE_SIZE) termCache.clear()
    termCache.set(word, term)
  }
  return term
}

/** Search terms of a text: split, stop words dropped, stemmed. */
export function tokenize(text: string): string[] {
  const out: string[] = []
  for (const word of splitWords(text)) {
    const term = termOf(word)
    if (term !== '') out.push(term)
  }
  return out
}

/**
 * Query-side synonyms (a small table, not a thesaurus): paraphrases agents commonly use for what
 * tools are named. Keys and values are stems.
 */
export const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  meet: ['event', 'calendar'],
  meeting: ['event', 'calendar'],
  email: ['messag', 'mail'],
  mail: ['messag', 'email'],
  weather: ['forecast'],
  remov: ['delet'],
  delet: ['remov'],
  fetch: ['get', 'read'],
  retriev: ['get', 'read'],
  find: ['search', 'list'],
  look: ['search', 'find'],
  show: ['get', 'list'],
  creat: ['add', 'new'],
  add: ['creat'],
  mak: ['creat'],
  edit: ['updat'],
  modify: ['updat'],
  chang: ['updat'],
  ticket: ['issu'],
  bug: ['issu'],
  repo: ['repository'],
  repository: ['repo'],
  pr: ['pull', 'request'],
  doc: ['document', 'file'],
  folder: ['directory'],
  directory: ['folder'],
  user: ['member', 'account'],
  oncall: ['call'],
}
