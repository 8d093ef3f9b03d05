/**
 * @module
 * A client's FIN means one of two things over TCP: it half-closed after sending its whole request
 * (shutdown(SHUT_WR)) and waits for the answer, or it went away for good. The proxy keeps serving
 * either way (`httpAllowHalfOpen`) and asks which: an interim `100 Continue`, which every HTTP/1.1
 * client must accept before the final answer (RFC 9110 §15.2), reaches a waiting client harmlessly
 * and draws a reset from a closed one, so the next one fails, the exchange closes, and its upstream
 * request is cancelled.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** When the interim answers go out after a FIN, in milliseconds: at once, soon, then every second. */
export const HALF_CLOSE_PROBE_DELAYS_MS: readonly number[] = [0, 100];
export const HALF_CLOSE_PROBE_INTERVAL_MS = 1_000;

/**
 * Watches the client side of one exchange: after the client's FIN, and until the answer starts, an
 * interim `100 Continue` goes out on the schedule above.
 *
 * @example
 * watchHalfClose(request, response);
 */
export function watchHalfClose(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket;
  const timers: NodeJS.Timeout[] = [];
  const answering = () => response.headersSent || response.writableEnded || socket.destroyed;
  const probe = (): void => {
    if (answering()) {
      stop();
      return;
    }
    response.writeContinue();
  };
  const onEnd = (): void => {
    // No 1xx answer may go to an HTTP/1.0 client (RFC 9110 §15.2): it is served, never asked.
    if (answering() || request.httpVersionMajor < 1 || request.httpVersion === '1.0') return;
    for (const delay of HALF_CLOSE_PROBE_DELAYS_MS) timers.push(setTimeout(probe, delay));
    timers.push(setInterval(probe, HALF_CLOSE_PROBE_INTERVAL_MS));
    for (const timer of timers) timer.unref();
  };
  const stop = (): void => {
    socket.off('end', onEnd);
    for (const timer of timers.splice(0)) clearTimeout(timer);
  };
  response.once('close', stop);
  if (socket.readableEnded) onEnd();
  else socket.once('end', onEnd);
}
