// The exported `State` type as code written against @octokit/webhooks uses it.
import type { State as OctokitState } from '@octokit/webhooks/types';
import { describe, expectTypeOf, it } from 'vitest';
import { createEventHandler } from '../src/index.js';
import type { State } from '../src/public-types.js';

describe('State', () => {
  it('is built from a literal whose hooks are a plain object', () => {
    const log = { debug() {}, info() {}, warn() {}, error() {} };
    const state: State = { hooks: {}, log };
    const withHandlers: State = {
      secret: 'mysecret',
      hooks: { push: [() => {}], '*': [(event: { id: string }) => event.id] },
      log,
      eventHandler: createEventHandler({}),
    };
    expectTypeOf(state.hooks).toEqualTypeOf<State['hooks']>();
    expectTypeOf(withHandlers.hooks.push).toEqualTypeOf<State['hooks'][string] | undefined>();
    // @ts-expect-error hooks is not a Map
    const _map: State = { hooks: new Map<string, never[]>(), log };
  });

  it("has @octokit/webhooks' hooks type and takes the peer's State literals", () => {
    // Event names differ by the provider rename, so only the provider-neutral parts compare.
    expectTypeOf<State['hooks']>().toEqualTypeOf<OctokitState['hooks']>();
    const peer: OctokitState = { hooks: { push: [() => {}] }, log: console, secret: 's' };
    const ours: State = { hooks: peer.hooks, log: peer.log, secret: peer.secret };
    const back: Pick<OctokitState, 'hooks' | 'log' | 'secret'> = ours;
    expectTypeOf(back.hooks).toEqualTypeOf<OctokitState['hooks']>();
  });
});
