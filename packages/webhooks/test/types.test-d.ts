import { describe, expectTypeOf, it } from 'vitest';
import {
  createEventHandler,
  type EmitterWebhookEvent,
  type EmitterWebhookEventName,
  emitterEventNames,
  type ReceivedEvent,
  validateEventName,
  type WebhookEventAction,
  type WebhookEventHandlerError,
  type WebhookEventName,
  type WebhookEventPayload,
  type WebhookSchemas,
  Webhooks,
} from '../src/index.js';
import { sign, verify, verifyWithFallback } from '../src/methods/index.js';

describe('event names', () => {
  it('emitterEventNames is a readonly literal tuple', () => {
    expectTypeOf(emitterEventNames[0]).toEqualTypeOf<'branch_protection_configuration'>();
    expectTypeOf(emitterEventNames[1]).toEqualTypeOf<'branch_protection_configuration.disabled'>();
    expectTypeOf(emitterEventNames).toMatchTypeOf<ReadonlyArray<string>>();
    // @ts-expect-error read-only
    emitterEventNames.push('x');
  });

  it('the name union holds events and event.action names, nothing else', () => {
    expectTypeOf<'issues'>().toMatchTypeOf<EmitterWebhookEventName>();
    expectTypeOf<'issues.opened'>().toMatchTypeOf<EmitterWebhookEventName>();
    expectTypeOf<'provider_app_authorization.revoked'>().toMatchTypeOf<EmitterWebhookEventName>();
    expectTypeOf<'issues.nope'>().not.toMatchTypeOf<EmitterWebhookEventName>();
    expectTypeOf<'push.created'>().not.toMatchTypeOf<EmitterWebhookEventName>();
    expectTypeOf<'*'>().not.toMatchTypeOf<EmitterWebhookEventName>();
    expectTypeOf<WebhookEventAction<'star'>>().toEqualTypeOf<'created' | 'deleted'>();
    expectTypeOf<'issues.opened'>().not.toMatchTypeOf<WebhookEventName>();
  });
});

describe('EmitterWebhookEvent', () => {
  it('narrows name and payload.action for event.action names', () => {
    type Opened = EmitterWebhookEvent<'issues.opened'>;
    expectTypeOf<Opened['name']>().toEqualTypeOf<'issues'>();
    expectTypeOf<Opened['id']>().toEqualTypeOf<string>();
    expectTypeOf<Opened['payload']['action']>().toEqualTypeOf<'opened'>();
    expectTypeOf<Opened['payload']['issue']['number']>().toEqualTypeOf<number>();
  });

  it('gives events with actions the union of their actions', () => {
    type Star = EmitterWebhookEvent<'star'>;
    expectTypeOf<Star['payload']['action']>().toEqualTypeOf<'created' | 'deleted'>();
  });

  it('gives events without actions no action field', () => {
    type Push = EmitterWebhookEvent<'push'>['payload'];
    expectTypeOf<Push['ref']>().toEqualTypeOf<string>();
    expectTypeOf<Push['commits'][number]['id']>().toEqualTypeOf<string>();
    expectTypeOf<Push>().not.toHaveProperty('action');
  });

  it('payloads are the generated schema types, with the provider rename', () => {
    type Payload = WebhookEventPayload<'label', 'created'>;
    expectTypeOf<Payload['repository']>().toEqualTypeOf<WebhookSchemas['repository-webhooks']>();
    expectTypeOf<Payload['sender']>().toEqualTypeOf<WebhookSchemas['simple-user'] | undefined>();
    // @ts-expect-error fields the schema does not list are a compile error
    type _Unknown = Payload['something_new'];
    type Comment = WebhookEventPayload<'issue_comment', 'created'>['comment'];
    expectTypeOf<Comment>().toHaveProperty('performed_via_provider_app');
    expectTypeOf<Comment>().not.toHaveProperty('performed_via_github_app');
  });

  it('is a union narrowed by name', () => {
    const handle = (event: EmitterWebhookEvent) => {
      if (event.name === 'pull_request') {
        expectTypeOf(event.payload.pull_request.number).toEqualTypeOf<number>();
        expectTypeOf(event.payload.action).toMatchTypeOf<string>();
      }
    };
    expectTypeOf(handle).toBeFunction();
  });

  it('unions over several names', () => {
    type Either = EmitterWebhookEvent<'issues.opened' | 'issues.closed'>;
    expectTypeOf<Either['payload']['action']>().toEqualTypeOf<'opened' | 'closed'>();
  });
});

describe('Webhooks', () => {
  it('requires a secret', () => {
    // @ts-expect-error secret is required
    new Webhooks({});
  });

  it('on() narrows the handler event from the name', () => {
    const webhooks = new Webhooks({ secret: 's' });
    webhooks.on('issues.opened', (event) => {
      expectTypeOf(event.name).toEqualTypeOf<'issues'>();
      expectTypeOf(event.payload.action).toEqualTypeOf<'opened'>();
    });
    webhooks.on(['issues.opened', 'issues.closed'], (event) => {
      expectTypeOf(event.payload.action).toEqualTypeOf<'opened' | 'closed'>();
    });
    webhooks.on('ping', ({ payload }) => {
      expectTypeOf(payload.zen).toEqualTypeOf<string | undefined>();
    });
    // @ts-expect-error unknown event names are a compile error
    webhooks.on('issues.typo', () => {});
    // @ts-expect-error "*" belongs to onAny()
    webhooks.on('*', () => {});
  });

  it('onAny, onError and removeListener are typed', () => {
    const webhooks = new Webhooks({ secret: 's' });
    webhooks.onAny((event) => expectTypeOf(event).toEqualTypeOf<EmitterWebhookEvent>());
    webhooks.onError((error) => {
      expectTypeOf(error).toEqualTypeOf<WebhookEventHandlerError>();
      expectTypeOf(error.errors).toBeArray();
    });
    const any = (_event: EmitterWebhookEvent) => {};
    webhooks.removeListener('*', any);
    webhooks.removeListener('error', (_error: WebhookEventHandlerError) => {});
  });

  it('transform types reach on() handlers', () => {
    const webhooks = new Webhooks({
      secret: 's',
      transform: async (event) => ({ receivedAt: 1, id: event.id }),
    });
    webhooks.on('push', (event) => {
      expectTypeOf(event.receivedAt).toEqualTypeOf<number>();
      expectTypeOf(event.payload.ref).toEqualTypeOf<string>();
    });
  });

  it('methods return promises', () => {
    const webhooks = new Webhooks({ secret: 's' });
    expectTypeOf(webhooks.sign('x')).toEqualTypeOf<Promise<string>>();
    expectTypeOf(webhooks.verify('x', 'y')).toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(webhooks.receive).parameter(0).toEqualTypeOf<ReceivedEvent | Error>();
    expectTypeOf(
      webhooks.verifyAndReceive({ id: '1', name: 'push', payload: '{}', signature: 's' }),
    ).toEqualTypeOf<Promise<void>>();
    expectTypeOf(createEventHandler().receive).returns.toEqualTypeOf<Promise<void>>();
  });
});

describe('methods and validateEventName', () => {
  it('standalone methods', () => {
    expectTypeOf(sign).parameters.toEqualTypeOf<[string, string | Uint8Array]>();
    expectTypeOf(verify).returns.toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(verifyWithFallback)
      .parameter(3)
      .toEqualTypeOf<ReadonlyArray<string> | undefined>();
  });

  it('validateEventName asserts the name type', () => {
    const name: string = 'push';
    validateEventName(name);
    expectTypeOf(name).toEqualTypeOf<EmitterWebhookEventName>();
  });
});

describe('validateEventName with lenient modes', () => {
  it('asserts only string for warn/ignore', () => {
    const name: string = 'custom';
    validateEventName(name, { onUnknownEventName: 'ignore' });
    expectTypeOf(name).toEqualTypeOf<string>();
  });
});
