// Every example payload of @octokit/webhooks-examples, with the provider rename applied, goes
// through verifyAndReceive and reaches exactly the handlers of its event and `<event>.<action>`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { emitterEventNames } from '../src/event-names/emitter-event-names.js';
import type { EmitterWebhookEventName } from '../src/event-names/event-name-types.js';
import { Webhooks } from '../src/webhooks.js';
import { captureLog } from './helpers/capture-log.js';
import { independentSign } from './helpers/independent-sign.js';

interface ExampleDefinition {
  name: string;
  actions: string[];
  examples: Array<Record<string, unknown>>;
}

const require = createRequire(import.meta.url);
const definitions = JSON.parse(
  readFileSync(require.resolve('@octokit/webhooks-examples/api.github.com/index.json'), 'utf8'),
) as ExampleDefinition[];

/** The provider rename, as applied to identifiers: event names and payload keys. */
function rename<T>(value: T): T {
  if (Array.isArray(value)) return value.map(rename) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => [
        key.replaceAll('github', 'provider'),
        rename(field),
      ]),
    ) as T;
  }
  return value;
}

const examples = definitions.flatMap((definition) =>
  definition.examples.map((example, index) => ({
    name: definition.name.replaceAll('github', 'provider'),
    index,
    payload: rename(example),
  })),
);
const secret = 'examples-secret';
const known = new Set<string>(emitterEventNames);

function findExample(name: string, action?: string): Record<string, unknown> {
  const found = examples.find(
    (example) =>
      example.name === name && (action === undefined || example.payload.action === action),
  );
  if (found === undefined) throw new Error(`no example for ${name}.${action}`);
  return found.payload;
}

async function deliver(webhooks: Webhooks, name: string, payload: unknown, id = 'delivery') {
  const text = JSON.stringify(payload);
  await webhooks.verifyAndReceive({
    id,
    name,
    payload: text,
    signature: independentSign(secret, text),
  });
}

describe('@octokit/webhooks-examples through verifyAndReceive', () => {
  it('has examples for the renamed events', () => {
    expect(examples.length).toBeGreaterThan(300);
    expect(examples.some((example) => example.name === 'provider_app_authorization')).toBe(true);
    expect(JSON.stringify(examples)).not.toContain('performed_via_github_app');
  });

  it('dispatches every example to its event and event.action handlers only', async () => {
    const log = captureLog();
    const webhooks = new Webhooks({ secret, log });
    const calls: Array<{ registered: string; id: string; name: string; payload: unknown }> = [];
    for (const registered of emitterEventNames) {
      webhooks.on(registered, ({ id, name, payload }) => {
        calls.push({ registered, id, name, payload });
      });
    }
    const anyCalls: string[] = [];
    webhooks.onAny(({ id }) => void anyCalls.push(id));

    let unknownActions = 0;
    for (const { name, index, payload } of examples) {
      calls.length = 0;
      const id = `${name}-${index}`;
      await deliver(webhooks, name, payload, id);

      const action = typeof payload.action === 'string' ? payload.action : undefined;
      const expected = [name];
      if (action !== undefined && known.has(`${name}.${action}`)) {
        expected.unshift(`${name}.${action}`);
      } else if (action !== undefined) {
        unknownActions++;
      }
      expect(
        calls.map((call) => call.registered),
        id,
      ).toEqual(expected);
      for (const call of calls) {
        expect(call.id).toBe(id);
        expect(call.name).toBe(name);
        expect(call.payload).toEqual(payload);
      }
      expect(anyCalls.at(-1)).toBe(id);
    }
    expect(anyCalls).toHaveLength(examples.length);
    // repository_dispatch examples use a custom action (the dispatch's event_type).
    expect(unknownActions).toBe(
      examples.filter((example) => example.name === 'repository_dispatch').length,
    );
    expect(log.lines.error).toEqual([]);
    expect(log.lines.warn).toEqual([]);
  });

  it('rejects every example whose signature is for another payload', async () => {
    const webhooks = new Webhooks({ secret });
    const errors: unknown[] = [];
    webhooks.onError((error) => void errors.push(error));
    for (const { name, payload } of examples.slice(0, 20)) {
      const text = JSON.stringify(payload);
      await expect(
        webhooks.verifyAndReceive({
          id: '1',
          name,
          payload: text,
          signature: independentSign(secret, `${text} `),
        }),
      ).rejects.toThrow(/signature does not match/);
    }
    expect(errors).toHaveLength(20);
  });
});

describe('typed handlers read the examples', () => {
  // Each handler reads fields through the generated payload type of its name; the values must
  // be the example's, so the types and the data agree on where those fields are.
  it('narrows payloads per event and action', async () => {
    const webhooks = new Webhooks({ secret });
    const seen: Record<string, unknown> = {};
    webhooks.on('check_run.completed', ({ name, payload }) => {
      expectTypeOf(name).toEqualTypeOf<'check_run'>();
      expectTypeOf(payload.action).toEqualTypeOf<'completed'>();
      seen.check_run = [payload.check_run.id, payload.check_run.conclusion];
    });
    webhooks.on('issue_comment.created', ({ payload }) => {
      expectTypeOf(payload.comment.body).toEqualTypeOf<string>();
      seen.issue_comment = [payload.comment.body, payload.issue.number];
    });
    webhooks.on('push', ({ payload }) => {
      expectTypeOf(payload.ref).toEqualTypeOf<string>();
      seen.push = [payload.ref, payload.commits.length];
    });
    webhooks.on('pull_request.opened', ({ payload }) => {
      expectTypeOf(payload.pull_request.number).toEqualTypeOf<number>();
      seen.pull_request = [payload.pull_request.number, payload.pull_request.head.sha];
    });
    webhooks.on('provider_app_authorization.revoked', ({ payload }) => {
      expectTypeOf(payload.action).toEqualTypeOf<'revoked'>();
      seen.provider_app_authorization = payload.sender.login;
    });
    webhooks.on('installation.created', ({ payload }) => {
      expectTypeOf(payload.installation.id).toEqualTypeOf<number>();
      seen.installation = payload.installation.id;
    });
    webhooks.on('workflow_run.completed', ({ payload }) => {
      seen.workflow_run = payload.workflow_run.conclusion;
    });

    const samples: Array<[EmitterWebhookEventName, string | undefined]> = [
      ['check_run', 'completed'],
      ['issue_comment', 'created'],
      ['push', undefined],
      ['pull_request', 'opened'],
      ['provider_app_authorization', 'revoked'],
      ['installation', 'created'],
      ['workflow_run', 'completed'],
    ];
    for (const [name, action] of samples) await deliver(webhooks, name, findExample(name, action));

    const checkRun = findExample('check_run', 'completed').check_run as Record<string, unknown>;
    expect(seen.check_run).toEqual([checkRun.id, checkRun.conclusion]);
    const comment = findExample('issue_comment', 'created') as {
      comment: { body: string };
      issue: { number: number };
    };
    expect(seen.issue_comment).toEqual([comment.comment.body, comment.issue.number]);
    const push = findExample('push') as { ref: string; commits: unknown[] };
    expect(seen.push).toEqual([push.ref, push.commits.length]);
    const pull = findExample('pull_request', 'opened') as {
      pull_request: { number: number; head: { sha: string } };
    };
    expect(seen.pull_request).toEqual([pull.pull_request.number, pull.pull_request.head.sha]);
    const revoked = findExample('provider_app_authorization', 'revoked') as {
      sender: { login: string };
    };
    expect(seen.provider_app_authorization).toBe(revoked.sender.login);
    const installation = findExample('installation', 'created') as { installation: { id: number } };
    expect(seen.installation).toBe(installation.installation.id);
    const run = findExample('workflow_run', 'completed') as {
      workflow_run: { conclusion: string };
    };
    expect(seen.workflow_run).toBe(run.workflow_run.conclusion);
  });
});
