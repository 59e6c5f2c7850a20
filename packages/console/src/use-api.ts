import { useContext, useEffect, useState } from 'preact/hooks';
import { KeyRefusedError } from './api-client.js';
import { KeyRefused } from './key-gate.js';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
}

/**
 * Runs `load` whenever `deps` change (and every `pollMs` when given), keeping the last good data
 * while a refresh runs; a refused key brings the key prompt back.
 */
export function useApi<T>(load: () => Promise<T>, deps: unknown[], pollMs?: number): Loaded<T> {
  const refused = useContext(KeyRefused);
  const [state, setState] = useState<Loaded<T>>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setState((s) => ({ ...s, loading: true }));
    const run = async () => {
      try {
        const data = await load();
        if (live) setState({ data, error: undefined, loading: false });
      } catch (error) {
        if (!live) return;
        if (error instanceof KeyRefusedError) {
          refused(error.message);
          return;
        }
        setState((s) => ({ ...s, error: (error as Error).message, loading: false }));
      }
      if (live && pollMs) timer = setTimeout(run, pollMs);
    };
    void run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, deps);
  return state;
}
