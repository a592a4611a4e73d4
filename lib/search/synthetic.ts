/**
 * A deterministic synthetic tool corpus for benchmarks and tests (scripts/bench.ts): servers ×
 * entities × verbs with realistic names, descriptions and input schemas. No randomness source but
 * the index, so the same `count` always yields the same tools.
 */
import type { ToolDoc } from './tool-index.ts'

const SERVERS = (
  'github gitlab jira linear slack discord notion confluence postgres mysql redis mongo s3 gcs azure-blob k8s docker ' +
  'terraform datadog grafana sentry pagerduty stripe shopify salesforce hubspot zendesk intercom gmail calendar drive dropbox ' +
  'figma airtable asana trello twilio sendgrid openweather'
).split(' ')
const ENTITIES =
  'issue pull_request repository user team project comment label milestone file folder bucket object record table ' +
  'query dashboard alert incident invoice customer order product message channel event document page ticket deployment pod ' +
  'secret webhook report'
const VERBS = ['list', 'get', 'create', 'update', 'delete', 'search', 'archive', 'export']
const VERB_TEXT: Record<string, string> = {
  list: 'List all',
  get: 'Get a single',
  create: 'Create a new',
  update: 'Update an existing',
  delete: 'Permanently delete a',
  search: 'Search for',
  archive: 'Archive a',
  export: 'Export every',
}

/** `count` tools spread over up to 40 servers, each with a small input schema. */
export function syntheticTools(count: number): Array<{ server: string; tool: ToolDoc }> {
  const entities = ENTITIES.split(' ')
  const out: Array<{ server: string; tool: ToolDoc }> = []
  for (let i = 0; out.length < count; i++) {
    const server = SERVERS[i % SERVERS.length]!
    const round = Math.floor(i / SERVERS.length)
    const entity = entities[round % entities.length]!
    const verb = VERBS[Math.floor(round / entities.length) % VERBS.length]!
    const suffix = Math.floor(round / (entities.length * VERBS.length))
    const name = `${verb}_${entity}${verb === 'list' || verb === 'export' ? 's' : ''}${suffix > 0 ? `_v${suffix + 1}` : ''}`
    const noun = entity.replace(/_/g, ' ')
    out.push({
      server,
      tool: {
        name,
        description: `${VERB_TEXT[verb]} ${noun}${verb === 'list' || verb === 'export' ? 's' : ''} in ${server}. Returns the ${noun} fields as JSON.`,
        inputSchema: {
          type: 'object',
          properties: {
            [`${entity}_id`]: { type: 'string', description: `Identifier of the ${noun}` },
            workspace: { type: 'string', description: `The ${server} workspace or account` },
            limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Maximum number of results' },
          },
          required: verb === 'list' || verb === 'search' ? [] : [`${entity}_id`],
        },
      },
    })
  }
  return out
}

/** Queries used by the search benchmark: real phrasing, a typo, a paraphrase, a server-scoped one. */
export const BENCH_QUERIES: readonly string[] = [
  'list open pull requests',
  'delete a file from a bucket',
  'create jira ticket',
  'search slack messages in a channel',
  'get customer invoice',
  'export dashboards',
  'archive incident report',
  'update deployment pod secret',
  'serach repositry issues',
  'send an email',
  'who is on call',
  'find documents about onboarding',
]
