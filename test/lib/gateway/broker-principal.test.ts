/**
 * Brokering by principal (broker.ts): a question a legacy upstream sends outside any call's flow
 * goes to an in-flight call only when every in-flight call runs for the same principal; calls of
 * two principals make it undecidable, and then it is refused rather than put to the wrong host.
 */
import { describe, expect, test } from 'bun:test'
import { Broker, type DownstreamAsker } from '../../../lib/gateway/index.ts'

const QUESTION = { message: 'which one?', requestedSchema: { type: 'object', properties: {} } }
const CONTEXT = { era: 'legacy' as const, via: 'request' as const, key: 7 }

function asker(answer: string): DownstreamAsker {
  return { elicit: async () => ({ action: 'accept', content: { answer } }) }
}

/** Start a call that stays in flight until the returned function is called. */
function hold(broker: Broker, who: DownstreamAsker, principal?: string): () => void {
  let release!: () => void
  void broker.run(who, () => new Promise<void>((resolve) => (release = resolve)), undefined, principal)
  return () => release()
}

describe('Broker questions and principals', () => {
  test('with calls of one principal in flight, the question goes to the most recent', async () => {
    const broker = new Broker('up')
    const releases = [hold(broker, asker('first'), 'alice'), hold(broker, asker('second'), 'alice')]
    expect(await broker.handlers().onElicit!(QUESTION, CONTEXT)).toEqual({ action: 'accept', content: { answer: 'second' } })
    for (const release of releases) release()
  })

  test('with calls of two principals in flight, the question is refused', async () => {
    const broker = new Broker('up')
    const releases = [hold(broker, asker('alice'), 'alice'), hold(broker, asker('bob'), 'bob')]
    await expect(Promise.resolve().then(() => broker.handlers().onElicit!(QUESTION, CONTEXT))).rejects.toThrow(
      'upstream "up" asked for elicitation while calls of several principals were in flight; mcpx cannot tell whose question it is, so it is refused',
    )
    for (const release of releases) release()
  })

  test('the owner (no principal) and an OAuth principal are two principals', async () => {
    const broker = new Broker('up')
    const releases = [hold(broker, asker('owner')), hold(broker, asker('alice'), 'alice')]
    await expect(Promise.resolve().then(() => broker.handlers().onElicit!(QUESTION, CONTEXT))).rejects.toThrow('several principals')
    for (const release of releases) release()
  })

  test('a question inside a call\'s own flow (2026 upstream) goes to that call whatever else is in flight', async () => {
    const broker = new Broker('up')
    const release = hold(broker, asker('bob'), 'bob')
    const answer = await broker.run(asker('alice'), async () => broker.handlers().onElicit!(QUESTION, { ...CONTEXT, era: 'modern', via: 'input_required', key: 'q' }), undefined, 'alice')
    expect(answer).toEqual({ action: 'accept', content: { answer: 'alice' } })
    release()
  })
})
