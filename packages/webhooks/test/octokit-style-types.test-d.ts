// Usage as a project migrating from @octokit/webhooks writes it, typechecked under --strict.
import { describe, expectTypeOf, it } from 'vitest';
import {
  createEventHandler,
  createNodeMiddleware,
  createWebMiddleware,
  Webhooks,
} from '../src/index.js';
import type {
  ActionPayloadMap,
  AggregateWebhookError,
  EmitterWebhookEvent,
  EmitterWebhookEventName,
  EventHandler,
  EventPayloadMap,
  ExtractEvents,
  HandlerFunction,
  Options,
  RemoveHandlerFunction,
  State,
  WebhookError,
  WebhookEventDefinition,
  WebhookEventHandlerError,
  WebhookEventName,
  WebhookEvents,
} from '../src/public-types.js';

describe('types entry: octokit names', () => {
  it('ExtractEvents and WebhookEvents keep event names only', () => {
    expectTypeOf<ExtractEvents<'issues' | 'issues.opened' | 'push'>>().toEqualTypeOf<
      'issues' | 'push'
    >();
    expectTypeOf<'check_run'>().toMatchTypeOf<WebhookEvents>();
    expectTypeOf<'provider_app_authorization'>().toMatchTypeOf<WebhookEvents>();
    expectTypeOf<'check_run.completed'>().not.toMatchTypeOf<WebhookEvents>();
    expectTypeOf<WebhookEvents>().toMatchTypeOf<EmitterWebhookEventName>();
  });

  it('WebhookEventDefinition is the payload of one upstream definition', () => {
    type Completed = WebhookEventDefinition<'check-run-completed'>;
    expectTypeOf<Completed['action']>().toEqualTypeOf<'completed'>();
    expectTypeOf<Completed>().toEqualTypeOf<
      EmitterWebhookEvent<'check_run.completed'>['payload']
    >();
    type Revoked = WebhookEventDefinition<'provider-app-authorization-revoked'>;
    expectTypeOf<Revoked['action']>().toEqualTypeOf<'revoked'>();
    // @ts-expect-error the provider's name is not part of any identifier
    type _Old = WebhookEventDefinition<'github-app-authorization-revoked'>;
  });

  it('Options, State and the handler function types', () => {
    const options: Options<{ extra: number }> = {
      secret: 'mysecret',
      transform: (event) => ({ extra: event.id.length }),
    };
    expectTypeOf(options.secret).toEqualTypeOf<string | undefined>();
    expectTypeOf<State['log']['warn']>().toBeFunction();
    const handler: HandlerFunction<'issues.opened', unknown> = ({ payload }) => payload.issue.title;
    const remove: RemoveHandlerFunction<'issues.opened', unknown> = (event) => event.name;
    const removeAny: RemoveHandlerFunction<'issues.opened' | '*', unknown> = (event) => event.id;
    expectTypeOf(handler).parameter(0).toHaveProperty('payload');
    expectTypeOf(remove).parameter(0).toEqualTypeOf<EmitterWebhookEvent<'issues.opened'>>();
    // Comparing names, not the whole event union, keeps the check cheap.
    expectTypeOf(removeAny)
      .parameter(0)
      .map((event) => event.name)
      .toEqualTypeOf<WebhookEvents>();
  });

  it('WebhookError carries event, status, request and response', () => {
    const error = new Error('x') as WebhookError;
    expectTypeOf(error.status).toEqualTypeOf<number | undefined>();
    expectTypeOf(error.request?.method).toEqualTypeOf<string | undefined>();
    expectTypeOf(error.request?.url).toEqualTypeOf<string | undefined>();
    expectTypeOf(error.event?.id).toEqualTypeOf<string | undefined>();
    expectTypeOf<AggregateWebhookError['errors']>().toEqualTypeOf<WebhookError[]>();
    expectTypeOf<WebhookEventHandlerError>().toMatchTypeOf<AggregateError>();
  });
});

describe('createEventHandler', () => {
  it('accepts octokit options, including a secret it does not need', () => {
    const eventHandler = createEventHandler({ secret: 'mysecret' });
    expectTypeOf(eventHandler).toEqualTypeOf<EventHandler<unknown>>();
    createEventHandler({});
    createEventHandler();
    // @ts-expect-error unknown options are still caught
    createEventHandler({ secrett: 'typo' });
  });

  it('receive() takes an event or an Error', async () => {
    const eventHandler = createEventHandler({});
    await eventHandler.receive(new Error('oops')).catch(() => undefined);
    await eventHandler
      .receive({ id: '1', name: 'push', payload: { ref: 'refs/heads/main' } })
      .catch(() => undefined);
  });
});

describe('on(): payload narrowing', () => {
  const webhooks = new Webhooks({ secret: 'mysecret' });

  it("on('check_run.completed') gives the completed check run", () => {
    webhooks.on('check_run.completed', ({ id, name, payload }) => {
      expectTypeOf(id).toEqualTypeOf<string>();
      expectTypeOf(name).toEqualTypeOf<'check_run'>();
      expectTypeOf(payload.action).toEqualTypeOf<'completed'>();
      expectTypeOf(payload.check_run.id).toEqualTypeOf<number>();
      expectTypeOf(payload.check_run.status).toEqualTypeOf<
        'queued' | 'in_progress' | 'completed' | 'pending'
      >();
      expectTypeOf(payload.check_run.conclusion).toEqualTypeOf<
        | 'waiting'
        | 'pending'
        | 'success'
        | 'failure'
        | 'neutral'
        | 'cancelled'
        | 'timed_out'
        | 'action_required'
        | 'stale'
        | 'skipped'
        | 'startup_failure'
        | null
      >();
      expectTypeOf(payload.repository.full_name).toEqualTypeOf<string>();
    });
  });

  it("on('check_run') narrows by payload.action", () => {
    webhooks.on('check_run', ({ payload }) => {
      expectTypeOf(payload.action).toEqualTypeOf<
        'completed' | 'created' | 'requested_action' | 'rerequested'
      >();
      if (payload.action === 'requested_action') {
        expectTypeOf(payload.requested_action).not.toBeNever();
      }
      if (payload.action === 'completed') {
        expectTypeOf(payload).toEqualTypeOf<
          EmitterWebhookEvent<'check_run.completed'>['payload']
        >();
      }
    });
  });

  it("on('issue_comment') types payload.comment and payload.issue", () => {
    webhooks.on('issue_comment', ({ payload }) => {
      expectTypeOf(payload.action).toEqualTypeOf<'created' | 'deleted' | 'edited'>();
      expectTypeOf(payload.comment.body).toEqualTypeOf<string>();
      expectTypeOf(payload.comment.user).not.toBeUnknown();
      expectTypeOf(payload.issue.number).toEqualTypeOf<number>();
    });
    webhooks.on('issue_comment.edited', ({ payload }) => {
      expectTypeOf(payload.changes).not.toBeUnknown();
    });
  });

  it('every event and action has a payload type', () => {
    webhooks.on('sub_issues.parent_issue_added', ({ payload }) => {
      expectTypeOf(payload.parent_issue_id).toEqualTypeOf<number>();
    });
    webhooks.on('secret_scanning_scan.completed', ({ payload }) => {
      expectTypeOf(payload.action).toEqualTypeOf<'completed'>();
    });
    webhooks.on('provider_app_authorization.revoked', ({ payload }) => {
      expectTypeOf(payload.sender).not.toBeUnknown();
    });
    webhooks.on('push', ({ payload }) => {
      expectTypeOf(payload.ref).toEqualTypeOf<string>();
      expectTypeOf(payload.commits[0]?.id).toEqualTypeOf<string | undefined>();
    });
  });

  it('on([...names]) gives the union of their events', () => {
    webhooks.on(['push', 'pull_request.opened'], (event) => {
      expectTypeOf(event.name).toEqualTypeOf<'push' | 'pull_request'>();
      if (event.name === 'pull_request') {
        expectTypeOf(event.payload.action).toEqualTypeOf<'opened'>();
        expectTypeOf(event.payload.pull_request.number).toEqualTypeOf<number>();
      } else {
        expectTypeOf(event.payload.ref).toEqualTypeOf<string>();
      }
    });
    const names = ['issues.opened', 'issues.closed'] as const;
    webhooks.on(names, ({ payload }) => {
      expectTypeOf(payload.action).toEqualTypeOf<'opened' | 'closed'>();
    });
    // @ts-expect-error a typo in one name of the array
    webhooks.on(['push', 'pul_request'], () => {});
  });
});

describe('removeListener()', () => {
  const webhooks = new Webhooks({ secret: 'mysecret' });

  it('infers the handler parameter from the names', () => {
    webhooks.removeListener(['push', 'pull_request'], ({ name, payload }) => {
      expectTypeOf(name).toEqualTypeOf<'push' | 'pull_request'>();
      expectTypeOf(payload).toEqualTypeOf<
        EmitterWebhookEvent<'push'>['payload'] | EmitterWebhookEvent<'pull_request'>['payload']
      >();
    });
    webhooks.removeListener('check_run.completed', ({ payload }) => {
      expectTypeOf(payload.action).toEqualTypeOf<'completed'>();
    });
    webhooks.removeListener('*', (event) => {
      expectTypeOf(event.name).toEqualTypeOf<WebhookEvents>();
    });
    webhooks.removeListener('error', (error) => {
      expectTypeOf(error).toEqualTypeOf<WebhookEventHandlerError>();
    });
    // @ts-expect-error unknown names
    webhooks.removeListener('nope', () => {});
  });

  it('takes the handler given to on() back', () => {
    const handler: HandlerFunction<'issues.opened', unknown> = () => {};
    webhooks.on('issues.opened', handler);
    webhooks.removeListener('issues.opened', handler);
  });
});

describe('loggers', () => {
  it('accepts loggers with narrower parameter types', () => {
    const log = {
      error: (error: AggregateError) => void error.errors,
      warn: (message: string) => void message.length,
    };
    const webhooks = new Webhooks({ secret: 'mysecret', log });
    createEventHandler({ log });
    createNodeMiddleware(webhooks, { log });
    createWebMiddleware(webhooks, {
      log: { info: (message: string, extra?: object) => void [message, extra] },
    });
    // @ts-expect-error a logger method must be a function
    new Webhooks({ secret: 'mysecret', log: { warn: 'no' } });
  });
});

describe('onError and transform', () => {
  it('error handlers see the transformed event type', () => {
    const webhooks = new Webhooks({
      secret: 'mysecret',
      // Not `{ ...event, … }`: spreading the union of every event costs tsc seconds.
      transform: (event) => ({ installationId: 1, deliveryId: event.id }),
    });
    webhooks.onError((error) => {
      expectTypeOf(error.errors).toEqualTypeOf<WebhookError[]>();
      expectTypeOf(error.event.id).toEqualTypeOf<string>();
      expectTypeOf(error.errors[0]?.request).toMatchTypeOf<object | undefined>();
    });
    webhooks.on('installation.created', (event) => {
      expectTypeOf(event.installationId).toEqualTypeOf<number>();
      expectTypeOf(event.deliveryId).toEqualTypeOf<string>();
      expectTypeOf(event.payload.installation.id).toEqualTypeOf<number>();
    });
  });
});

describe('payload maps cover the event table exactly', () => {
  it('one payload per event and per <event>.<action> name', () => {
    expectTypeOf<keyof EventPayloadMap>().toEqualTypeOf<WebhookEventName>();
    expectTypeOf<keyof ActionPayloadMap>().toEqualTypeOf<
      Extract<EmitterWebhookEventName, `${string}.${string}`>
    >();
  });
});
