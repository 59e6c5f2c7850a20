/** One delivery waiting for its handlers; unlinked when it settles or times out. */
export interface PendingDelivery {
  deadline: number;
  onTimeout: (() => void) | undefined;
  prev: PendingDelivery | undefined;
  next: PendingDelivery | undefined;
  /** Its own timer, on runtimes where the shared one cannot be used. */
  timer?: Timer | undefined;
}

export interface DeliveryDeadlines {
  /** Calls `onTimeout` after `timeout` ms unless `settle()` comes first. */
  add(onTimeout: () => void): PendingDelivery;
  /** The delivery settled: its timeout will not fire. Calling it twice is harmless. */
  settle(pending: PendingDelivery): void;
}

type Timer = ReturnType<typeof setTimeout>;

const now = (): number => performance.now();

function noop(): void {}

/**
 * The 202 timeouts of one middleware, on one timer instead of a `setTimeout` per delivery.
 * Every delivery gets the same timeout, so deadlines come in arrival order: pending deliveries
 * form a list (oldest first) and one timer waits for the oldest deadline. When nothing is
 * pending the timer is unref'd, so it never keeps a process alive that the per-delivery timers
 * would not have. Runtimes without Node-style timers (workerd, Deno) get a timer per delivery.
 *
 * @example
 * ```ts
 * const deadlines = createDeliveryDeadlines(9000);
 * const pending = deadlines.add(() => answer202());
 * work.finally(() => deadlines.settle(pending));
 * ```
 */
export function createDeliveryDeadlines(timeout: number): DeliveryDeadlines {
  let head: PendingDelivery | undefined;
  let tail: PendingDelivery | undefined;
  let timer: Timer | undefined;
  let timerRefed = false;

  // Decided at the first delivery (timers cannot be probed at import time on workerd): the
  // shared timer needs Node-style timer objects (Node, Bun). Elsewhere (workerd, Deno) each
  // delivery gets its own timer: on workerd a timer belongs to the request that set it and is
  // dropped when that request ends, so one request's timer must never serve another's deadline.
  let shared: boolean | undefined;

  const addOwnTimer = (onTimeout: () => void): PendingDelivery => {
    const pending: PendingDelivery = {
      deadline: 0,
      onTimeout,
      prev: undefined,
      next: undefined,
      timer: undefined,
    };
    pending.timer = setTimeout(() => {
      const callback = pending.onTimeout;
      pending.onTimeout = undefined;
      pending.timer = undefined;
      callback?.();
    }, timeout);
    return pending;
  };

  const arm = (delay: number): void => {
    timer = setTimeout(fire, Math.max(delay, 0));
    timerRefed = true;
  };

  const unlink = (pending: PendingDelivery): void => {
    const { prev, next } = pending;
    if (prev === undefined) head = next;
    else prev.next = next;
    if (next === undefined) tail = prev;
    else next.prev = prev;
    pending.prev = undefined;
    pending.next = undefined;
    pending.onTimeout = undefined;
  };

  function fire(): void {
    timer = undefined;
    const at = now();
    const expired: (() => void)[] = [];
    while (head !== undefined && head.deadline <= at) {
      const oldest = head;
      if (oldest.onTimeout !== undefined) expired.push(oldest.onTimeout);
      unlink(oldest);
    }
    // Re-arm first: a throwing callback must not stop later deadlines.
    if (head !== undefined) arm(head.deadline - at);
    for (const onTimeout of expired) onTimeout();
  }

  return {
    add(onTimeout) {
      if (shared === false) return addOwnTimer(onTimeout);
      if (shared === undefined) {
        const probe = setTimeout(noop, timeout);
        shared = typeof probe === 'object' && typeof probe?.unref === 'function';
        clearTimeout(probe);
        if (!shared) return addOwnTimer(onTimeout);
      }
      const pending: PendingDelivery = {
        deadline: now() + timeout,
        onTimeout,
        prev: tail,
        next: undefined,
      };
      if (tail === undefined) head = pending;
      else tail.next = pending;
      tail = pending;
      if (timer === undefined) arm(timeout);
      else if (!timerRefed) {
        // Armed for an earlier deadline that has settled since: it fires early and re-arms.
        timer.ref();
        timerRefed = true;
      }
      return pending;
    },
    settle(pending) {
      if (pending.onTimeout === undefined) return;
      if (pending.timer !== undefined) {
        clearTimeout(pending.timer);
        pending.timer = undefined;
        pending.onTimeout = undefined;
        return;
      }
      unlink(pending);
      if (head !== undefined || timer === undefined) return;
      // Nothing pending: the timer must not hold the process open.
      if (typeof timer === 'object' && typeof timer.unref === 'function') {
        timer.unref();
        timerRefed = false;
      } else {
        clearTimeout(timer);
        timer = undefined;
      }
    },
  };
}
