/**
 * The Docker event stream both rebinders follow: opened at start, opened again after a delay
 * whenever it fails (anchord waits 2 s), and never again once stopped.
 */
import type { Logger } from 'pino';
import { errorText } from '../../base/errors.js';

/** Opens a stream: `onEvent` per event, `onEnd` once when it fails. */
export type OpenStream<E> = (
  onEvent: (event: E) => void,
  onEnd: (error: unknown) => void,
) => Promise<{ stop(): void }>;

export interface RetryingStreamOptions<E> {
  readonly open: OpenStream<E>;
  readonly onEvent: (event: E) => void;
  readonly logger: Logger;
  /** The warn line logged on each failure; the rebinders keep anchord's wording. */
  readonly failureMessage: string;
  readonly retryDelayMs?: number;
}

export class RetryingStream<E> {
  private stream: { stop(): void } | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: RetryingStreamOptions<E>) {}

  async subscribe(): Promise<void> {
    if (this.stopped) return;
    try {
      this.stream = await this.options.open(
        (event) => this.options.onEvent(event),
        (error) => this.failed(error),
      );
      if (this.stopped) this.stream.stop();
    } catch (error) {
      this.failed(error);
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.stream?.stop();
  }

  private failed(error: unknown): void {
    if (this.stopped) return;
    this.stream = undefined;
    this.options.logger.warn({ err: errorText(error) }, this.options.failureMessage);
    this.retryTimer = setTimeout(() => void this.subscribe(), this.options.retryDelayMs ?? 2000);
  }
}
