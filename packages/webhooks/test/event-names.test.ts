import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, InvalidEventNameError } from '../src/errors.js';
import { validateEventName } from '../src/event-handler/validate-event-name.js';
import { emitterEventNames } from '../src/event-names/emitter-event-names.js';
import { eventTable } from '../src/event-names/event-table.js';
import { isKnownEventName } from '../src/event-names/is-known-event-name.js';
import { captureLog } from './helpers/capture-log.js';
import { findSpec } from './helpers/find-spec.js';

function parseSpecEventsTable(markdown: string): Array<[string, string[]]> {
  const section = markdown.split(/^## Events$/m)[1];
  if (section === undefined) throw new Error('spec has no "## Events" section');
  const lines = section.split('\n');
  const header = lines.findIndex((line) => /^\|\s*Event\s*\|\s*Actions\s*\|$/.test(line.trim()));
  if (header === -1) throw new Error('spec Events section has no | Event | Actions | table');
  const rows: Array<[string, string[]]> = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.trim().startsWith('|')) break;
    const [event, actions] = line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim());
    if (!event || actions === undefined) throw new Error(`unparsable row: ${line}`);
    rows.push([event, actions === 'none' ? [] : actions.split(',').map((a) => a.trim())]);
  }
  return rows;
}

const specPath = findSpec();
const specRequired = process.env.CI === 'true';

describe('event table vs spec', () => {
  it.runIf(specPath !== undefined || specRequired)(
    'matches the spec Events table row by row',
    () => {
      if (specPath === undefined) {
        throw new Error('shared/spec/webhooks.md not found (CI=true requires it beside the clone)');
      }
      const specRows = parseSpecEventsTable(readFileSync(specPath, 'utf8'));
      expect(specRows.length).toBeGreaterThan(70);
      expect(eventTable.length).toBe(specRows.length);
      specRows.forEach(([event, actions], i) => {
        const row = eventTable[i];
        expect(row?.[0], `row ${i + 1}`).toBe(event);
        expect([...(row?.[1] ?? [])], `actions of ${event}`).toEqual(actions);
      });
    },
  );
});

describe('emitterEventNames', () => {
  it('lists each event followed by its event.action names, exactly', () => {
    const expected = eventTable.flatMap(([event, actions]) => [
      event,
      ...actions.map((a) => `${event}.${a}`),
    ]);
    expect([...emitterEventNames]).toEqual(expected);
    expect(new Set(emitterEventNames).size).toBe(emitterEventNames.length);
  });

  it('contains the examples of the spec and the renamed provider event', () => {
    for (const name of ['installation', 'installation.created', 'push', 'ping']) {
      expect(emitterEventNames).toContain(name);
    }
    expect(emitterEventNames).toContain('provider_app_authorization.revoked');
    expect(emitterEventNames).not.toContain('push.created');
    expect(emitterEventNames).not.toContain('*');
    expect(emitterEventNames).not.toContain('error');
  });

  it('is read-only', () => {
    expect(Object.isFrozen(emitterEventNames)).toBe(true);
    expect(() => (emitterEventNames as unknown as string[]).push('x')).toThrow(TypeError);
  });

  it('isKnownEventName agrees with the tuple', () => {
    expect(isKnownEventName('issues.opened')).toBe(true);
    expect(isKnownEventName('issues.unknown')).toBe(false);
    expect(isKnownEventName('toString')).toBe(false);
  });
});

describe('validateEventName', () => {
  it('accepts every known name', () => {
    for (const name of emitterEventNames) expect(() => validateEventName(name)).not.toThrow();
  });

  it.each([[undefined], [null], [42], [{}]])('throws a TypeError for the non-string %s', (name) => {
    expect(() => validateEventName(name as unknown as string)).toThrow(InvalidEventNameError);
    expect(() => validateEventName(name as unknown as string)).toThrow(
      /^eventName must be of type string$/,
    );
  });

  it('throws for "*" pointing to onAny(), in every mode', () => {
    for (const mode of [undefined, 'warn', 'ignore'] as const) {
      expect(() => validateEventName('*', { onUnknownEventName: mode } as never)).toThrow(
        /Please use the Webhooks.onAny\(\) method instead/,
      );
    }
  });

  it('throws for "error" pointing to onError(), in every mode', () => {
    for (const mode of [undefined, 'warn', 'ignore'] as const) {
      expect(() => validateEventName('error', { onUnknownEventName: mode } as never)).toThrow(
        /Please use the Webhooks.onError\(\) method instead/,
      );
    }
  });

  it('throws for unknown names by default, with "throw" and with false', () => {
    expect(() => validateEventName('issues.typo')).toThrow(TypeError);
    expect(() => validateEventName('issues.typo')).toThrow(
      '"issues.typo" is not a known webhook name',
    );
    expect(() => validateEventName('nope', { onUnknownEventName: 'throw' })).toThrow(TypeError);
    expect(() => validateEventName('nope', { onUnknownEventName: false })).toThrow(TypeError);
  });

  it('warns through log.warn with "warn"', () => {
    const log = captureLog();
    validateEventName('new_event', { onUnknownEventName: 'warn', log });
    expect(log.lines.warn).toEqual([
      '"new_event" is not a known webhook name (https://developer.github.com/v3/activity/events/types/)',
    ]);
  });

  it('warns on the console when "warn" has no log', () => {
    const warn = console.warn;
    const seen: unknown[] = [];
    console.warn = (...args: unknown[]) => seen.push(...args);
    try {
      validateEventName('new_event', { onUnknownEventName: 'warn' });
    } finally {
      console.warn = warn;
    }
    expect(seen).toEqual([
      '"new_event" is not a known webhook name (https://developer.github.com/v3/activity/events/types/)',
    ]);
  });

  it('neither throws nor warns with "ignore"', () => {
    const log = captureLog();
    validateEventName('new_event', { onUnknownEventName: 'ignore' });
    expect(log.all()).toBe('');
  });

  it('rejects an invalid onUnknownEventName value clearly', () => {
    expect(() => validateEventName('push', { onUnknownEventName: 'warning' } as never)).toThrow(
      InvalidArgumentError,
    );
  });
});
