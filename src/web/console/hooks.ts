import { useCallback, useEffect, useRef, useState } from 'react';
import type { TypedDocumentString } from '../../generated/console/graphql';
import { ApiError, gql, onReconnect, subscribe } from './api';

export type Loaded<R> = {
  data: R | null;
  error: ApiError | null;
  loading: boolean;
  /** Reads again, keeping what is shown until the answer comes. */
  reload(): void;
};

/**
 * A query's answer, read when the component appears and whenever its variables (compared as text) or
 * `version` change; an answer that comes after a newer read started is dropped.
 */
export function useQuery<R, V>(document: TypedDocumentString<R, V>, variables: V, version = 0): Loaded<R> {
  const key = `${version} ${JSON.stringify(variables)}`;
  const [state, setState] = useState<{ data: R | null; error: ApiError | null; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  });
  const sequence = useRef(0);
  const latest = useRef({ document, variables });
  latest.current = { document, variables };

  const read = useCallback(() => {
    const mine = ++sequence.current;
    setState((previous) => ({ ...previous, loading: true }));
    const { document: doc, variables: vars } = latest.current;
    (gql as (d: TypedDocumentString<R, V>, v: V) => Promise<R>)(doc, vars).then(
      (data) => mine === sequence.current && setState({ data, error: null, loading: false }),
      (err: unknown) =>
        mine === sequence.current &&
        setState((previous) => ({
          data: previous.data,
          error: err instanceof ApiError ? err : new ApiError(String(err)),
          loading: false,
        })),
    );
  }, []);

  useEffect(() => {
    read();
  }, [key, read]);

  return { ...state, reload: read };
}

/**
 * Follows a subscription while the component is shown, calling `onEvent` for each message and again
 * (with null) after a reconnection, when messages may have been missed. Several messages within `settleMs`
 * call it once.
 */
export function useLive<R, V>(
  document: TypedDocumentString<R, V>,
  variables: V,
  onEvent: (data: R | null) => void,
  settleMs = 120,
): void {
  const key = JSON.stringify(variables);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    let timer: number | undefined;
    let last: R | null = null;
    const settle = (data: R | null) => {
      last = data;
      window.clearTimeout(timer);
      timer = window.setTimeout(() => handler.current(last), settleMs);
    };
    const stop = subscribe(document, JSON.parse(key) as V, settle);
    const stopReconnect = onReconnect(() => settle(null));
    return () => {
      window.clearTimeout(timer);
      stop();
      stopReconnect();
    };
    // The document is a constant of its module; the variables are compared by their text.
  }, [key, settleMs]);
}

/** The browser tab's title, while the component is shown. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Gather`;
  }, [title]);
}

/** Runs a write once at a time: `busy` while it runs, its refusal (not a userError) in `error`. */
export function useAction(): {
  busy: boolean;
  error: string | null;
  run<T>(action: () => Promise<T>): Promise<T | undefined>;
  clear(): void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async <T>(action: () => Promise<T>) => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(null) };
}
