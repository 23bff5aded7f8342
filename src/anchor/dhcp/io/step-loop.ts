/**
 * What both DHCP supervisors do with their pure client: each event is stepped, and its actions
 * carried out, only after the one before it has finished; after every step the one timer is
 * set again for the state's next wakeup.
 */

/** The timer's longest delay: setTimeout fires at once on anything longer. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export interface StepLoopParts<S extends { readonly kind: string }, E, A> {
  readonly step: (state: S, event: E) => { readonly state: S; readonly actions: readonly A[] };
  readonly nextWakeup: (state: S) => number | undefined;
  /** Carries out one action; `before` is the state the step started from. */
  readonly perform: (action: A, before: S) => Promise<void>;
  /** Called when a step changes the state's kind. */
  readonly transition: (before: S, after: S) => void;
  /** The event a timer expiry steps. */
  readonly timerEvent: () => E;
  readonly now: () => number;
}

export class StepLoop<S extends { readonly kind: string }, E, A> {
  private state: S;
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    initial: S,
    private readonly parts: StepLoopParts<S, E, A>,
  ) {
    this.state = initial;
  }

  current(): S {
    return this.state;
  }

  isStopped(): boolean {
    return this.stopped;
  }

  /** Resolves when every event queued so far has been stepped. */
  settled(): Promise<void> {
    return this.queue;
  }

  /** Queues `event`; once stopped, only an event queued `evenIfStopped` is still stepped. */
  enqueue(event: E, evenIfStopped = false): void {
    this.queue = this.queue.then(async () => {
      if (this.stopped && !evenIfStopped) return;
      const before = this.state;
      const result = this.parts.step(this.state, event);
      this.state = result.state;
      if (before.kind !== result.state.kind) this.parts.transition(before, result.state);
      for (const action of result.actions) await this.parts.perform(action, before);
      this.schedule();
    });
  }

  /** Clears the timer, refuses later events and steps `last`; resolves once it has run. */
  stop(last: E): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.enqueue(last, true);
    return this.queue;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const at = this.parts.nextWakeup(this.state);
    if (at === undefined || this.stopped) return;
    const delay = Math.min(Math.max(0, at - this.parts.now()), LONGEST_TIMER_MS);
    this.timer = setTimeout(() => this.enqueue(this.parts.timerEvent()), delay);
    this.timer.unref?.();
  }
}
