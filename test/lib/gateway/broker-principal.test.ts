/**
 * Brokering and principals (broker.ts): a question a legacy upstream sends outside any call's flow
 * goes only to the one call in flight on that connection, so it can never reach another principal's
 * host; with calls of two principals in flight it is refused rather than put to the wrong host.
 */
import { describe, expect, test } from 'bun:test'
import { Broker, type DownstreamAsker } from '../../../lib/gateway/index.ts'

const QUESTION = { message: 'which one?', requestedSchema: { type: 'object', properties: {} } }
const CONTEXT = { era: 'legacy' as const, via: 'request' as const, key: 7 }

function asker(answer: string, host?: object): DownstreamAsker {
  return { ...(host && { host }), elicit: async () => ({ action: 'accept', content: { answer } }) }
}

/** Start a call that stays in flight until the returned function is called. */
function hold(broker: Broker, who: DownstreamAsker): () => void {
  let release!: () => void
  void broker.run(who, () => new Promise<void>((resolve) => (release = resolve)))
  return () => release()
}

describe('Broker questions and principals', () => {
  test('with one call in flight, the question goes to it', async () => {
    const broker = new Broker('up')
    const release = hold(broker, asker('alice'))
    expect(await broker.handlers().onElicit!(QUESTION, CONTEXT)).toEqual({ action: 'accept', content: { answer: 'alice' } })
    release()
  })

  test('with calls of two principals in flight, the question is refused', async () => {
    const broker = new Broker('up')
    const releases = [hold(broker, asker('alice')), hold(broker, asker('bob'))]
    await expect(Promise.resolve().then(() => broker.handlers().onElicit!(QUESTION, CONTEXT))).rejects.toThrow(
      'upstream "up" asked for elicitation, but 2 calls of different hosts are in flight on that connection and the question names none of them',
    )
    for (const release of releases) release()
  })

  test('with calls of two sessions in flight, even of one principal, the question is refused', async () => {
    const broker = new Broker('up')
    const releases = [hold(broker, asker('alice', {})), hold(broker, asker('alice again', {}))]
    await expect(Promise.resolve().then(() => broker.handlers().onElicit!(QUESTION, CONTEXT))).rejects.toThrow('2 calls of different hosts')
    for (const release of releases) release()
  })

  test('with several calls of one host session in flight, the question goes to that host, through the oldest call', async () => {
    const broker = new Broker('up')
    const session = {}
    const releases = [hold(broker, asker('first call', session)), hold(broker, asker('second call', session))]
    expect(await broker.handlers().onElicit!(QUESTION, CONTEXT)).toEqual({ action: 'accept', content: { answer: 'first call' } })
    // A call of another session joining makes it ambiguous again.
    releases.push(hold(broker, asker('bob', {})))
    await expect(Promise.resolve().then(() => broker.handlers().onElicit!(QUESTION, CONTEXT))).rejects.toThrow('3 calls of different hosts')
    for (const release of releases) release()
  })

  test("a question inside a call's own flow (2026 upstream) goes to that call whatever else is in flight", async () => {
    const broker = new Broker('up')
    const release = hold(broker, asker('bob'))
    const answer = await broker.run(asker('alice'), async () =>
      broker.handlers().onElicit!(QUESTION, { ...CONTEXT, era: 'modern', via: 'input_required', key: 'q' }),
    )
    expect(answer).toEqual({ action: 'accept', content: { answer: 'alice' } })
    release()
  })
})
