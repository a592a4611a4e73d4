/**
 * Tool search: tokenizer, ranking on a small realistic corpus (paraphrase, typo, camelCase,
 * parameters), server filter and limits, and incremental add / replace / remove per server.
 */
import { describe, expect, test } from 'bun:test'
import { ToolIndex, createToolIndex, splitWords, stem, syntheticTools, tokenize } from '../../../lib/search/index.ts'
import { testSettings } from '../../harness.ts'

const CORPUS: Record<string, Array<{ name: string; title?: string; description: string; inputSchema?: unknown }>> = {
  github: [
    {
      name: 'search_issues',
      description: 'Search issues and pull requests across GitHub repositories.',
      inputSchema: { type: 'object', properties: { q: { type: 'string', description: 'Search query' } } },
    },
    {
      name: 'list_pull_requests',
      description: 'List pull requests in a GitHub repository.',
      inputSchema: {
        type: 'object',
        properties: { owner: { type: 'string' }, repo: { type: 'string' }, state: { type: 'string', enum: ['open', 'closed'] } },
      },
    },
    { name: 'create_issue', description: 'Open a new issue in a repository.' },
    { name: 'getFileContents', title: 'Read file', description: 'Get the contents of a file or directory from a repository.' },
  ],
  slack: [
    {
      name: 'post_message',
      description: 'Post a message to a Slack channel.',
      inputSchema: {
        type: 'object',
        properties: { channel_id: { type: 'string', description: 'Channel to post in' }, text: { type: 'string' } },
      },
    },
    { name: 'list_channels', description: 'List public channels in the workspace.' },
    { name: 'search_messages', description: 'Search messages in Slack.' },
  ],
  gmail: [
    { name: 'search_messages', description: 'Search emails in the mailbox with Gmail query syntax.' },
    { name: 'send_message', description: 'Send an email to one or more recipients.' },
  ],
  calendar: [{ name: 'list_events', description: 'List calendar events in a time range.' }],
  weather: [{ name: 'get_forecast', description: 'Weather forecast for a location for the next days.' }],
  s3: [
    {
      name: 'put_object',
      description: 'Upload a file to an S3 bucket.',
      inputSchema: { type: 'object', properties: { bucket: { type: 'string' }, key: { type: 'string' }, body: { type: 'string' } } },
    },
    { name: 'list_buckets', description: 'List S3 buckets.' },
  ],
  pagerduty: [{ name: 'list_on_calls', description: 'List who is on call for each escalation policy.' }],
}

function corpusIndex(): ToolIndex {
  const index = new ToolIndex()
  for (const [server, tools] of Object.entries(CORPUS)) index.setServer(server, tools)
  return index
}

const top = (index: ToolIndex, query: string, options = {}) => index.search(query, options)[0]?.qualifiedName

describe('tokenizer', () => {
  test('splits snake_case, camelCase, acronyms and keeps digits with their letters', () => {
    expect(splitWords('list_pull_requests getHTTPResponse s3Bucket ec2 2fa')).toEqual([
      'list',
      'pull',
      'requests',
      'get',
      'http',
      'response',
      's3',
      'bucket',
      'ec2',
      '2fa',
    ])
  })

  test('drops stop words and stems inflections to one term', () => {
    expect(tokenize('Search for the issues that I created')).toEqual(['search', 'issu', 'creat'])
    expect(['create', 'created', 'creating', 'creates'].map(stem)).toEqual(['creat', 'creat', 'creat', 'creat'])
    expect(['repositories', 'boxes', 'running', 'stopped', 'status', 'pull'].map(stem)).toEqual([
      'repository',
      'box',
      'run',
      'stop',
      'status',
      'pull',
    ])
  })
})

describe('ranking', () => {
  const index = corpusIndex()

  test.each([
    ['upload a file to an s3 bucket', 's3.put_object'],
    ['send an email', 'gmail.send_message'],
    ['list pull requests', 'github.list_pull_requests'],
    ['weather forecast', 'weather.get_forecast'],
    ['meetings', 'calendar.list_events'],
    ['serach isues', 'github.search_issues'],
    ['file contents', 'github.getFileContents'],
    ['read file', 'github.getFileContents'],
    ['who is on call', 'pagerduty.list_on_calls'],
  ])('%s → %s', (query, expected) => {
    expect(top(index, query)).toBe(expected)
  })

  test('parameter names and descriptions are searchable', () => {
    expect(index.search('channel_id').map((h) => h.qualifiedName)).toContain('slack.post_message')
  })

  test('server filter keeps only that server; several servers allowed', () => {
    const gmail = index.search('search messages', { server: 'gmail' })
    expect(gmail[0]?.qualifiedName).toBe('gmail.search_messages')
    expect(new Set(gmail.map((h) => h.server))).toEqual(new Set(['gmail']))
    const both = index.search('search messages', { server: ['gmail', 'slack'] }).map((h) => h.server)
    expect(new Set(both)).toEqual(new Set(['gmail', 'slack']))
  })

  test('hits carry server, name, qualified name, title, one-line description and score', () => {
    const [hit] = index.search('read file')
    expect(hit).toEqual({
      server: 'github',
      name: 'getFileContents',
      qualifiedName: 'github.getFileContents',
      title: 'Read file',
      description: 'Get the contents of a file or directory from a repository.',
      score: expect.any(Number),
    })
  })

  test('nothing matches → empty; stop words alone → empty', () => {
    expect(index.search('zzzqqq')).toEqual([])
    expect(index.search('the of and')).toEqual([])
  })
})

describe('limits', () => {
  const settings = testSettings({ searchDefaultLimit: 3, searchMaxLimit: 5 })
  const index = createToolIndex(settings)
  for (const { server, tool } of syntheticTools(200)) index.upsert(server, tool)

  test('default limit and max limit come from settings', () => {
    expect(index.search('list')).toHaveLength(3)
    expect(index.search('list', { limit: 50 })).toHaveLength(5)
    expect(index.search('list', { limit: 0 })).toEqual([])
  })

  test('results are ordered by score, ties stable by server then name', () => {
    const hits = index.search('list', { limit: 5 })
    for (let i = 1; i < hits.length; i++) {
      const [a, b] = [hits[i - 1]!, hits[i]!]
      expect(a.score > b.score || (a.score === b.score && `${a.server}\u0000${a.name}` < `${b.server}\u0000${b.name}`)).toBe(true)
    }
    expect(index.search('list', { limit: 5 })).toEqual(hits)
  })
})

describe('incremental updates', () => {
  test("setServer replaces a server's tools; upsert replaces one tool; remove and removeServer forget", () => {
    const index = corpusIndex()
    const total = index.size
    index.setServer('weather', [{ name: 'get_alerts', description: 'Severe weather alerts for a region.' }])
    expect(index.size).toBe(total)
    expect(top(index, 'forecast')).toBeUndefined()
    expect(top(index, 'severe alerts')).toBe('weather.get_alerts')

    index.upsert('weather', { name: 'get_alerts', description: 'Storm warnings.' })
    expect(index.size).toBe(total)
    expect(top(index, 'severe')).toBeUndefined()
    expect(top(index, 'storm warnings')).toBe('weather.get_alerts')

    expect(index.remove('weather', 'get_alerts')).toBe(true)
    expect(index.remove('weather', 'get_alerts')).toBe(false)
    expect(index.servers()).not.toContain('weather')

    index.removeServer('github')
    expect(index.search('pull requests').map((h) => h.server)).not.toContain('github')
    for (const server of index.servers()) index.removeServer(server)
    expect(index.size).toBe(0)
    expect(index.search('message')).toEqual([])
  })

  test('scores after removing and re-adding a server equal those of a fresh index', () => {
    const fresh = corpusIndex()
    const churned = corpusIndex()
    churned.removeServer('slack')
    churned.setServer('slack', CORPUS.slack!)
    expect(churned.search('post a message to a channel')).toEqual(fresh.search('post a message to a channel'))
  })
})
